// Lane-private memory through the private segment buffer (MUBUF) and
// scratch_ instructions: every lane writes its own values at the same
// private offsets and reads them back. An SGPR offset (like LLVM's stack
// pointer) is wave-scaled: 0x400 moves a lane's address by 16 bytes.
// out[t] = 3t + t + 5t + 7t = 16t.
// s[0:3] private segment buffer, s[4:5] kernargs (out), s6 wg id,
// s7 private segment wave offset.
	s_load_dwordx2 s[8:9], s[4:5], 0x0
	v_and_b32 v1, 0x3ff, v0
	v_mov_b32 v2, 16
	v_mul_lo_u32 v3, v1, 3
	buffer_store_dword v3, v2, s[0:3], s7 offen
	buffer_store_dword v1, off, s[0:3], s7 offset:4
	v_mul_lo_u32 v8, v1, 5
	v_mov_b32 v9, 32
	scratch_store_dword v9, v8, off
	v_mul_lo_u32 v11, v1, 7
	s_movk_i32 s10, 0x400
	buffer_store_dword v11, off, s[0:3], s10 offset:8
	s_waitcnt vmcnt(0)
	buffer_load_dword v4, v2, s[0:3], s7 offen
	buffer_load_dword v5, off, s[0:3], s7 offset:4
	scratch_load_dword v10, v9, off
	buffer_load_dword v12, off, s[0:3], s7 offset:24
	s_waitcnt vmcnt(0)
	v_add_u32 v4, v4, v5
	v_add_u32 v4, v4, v10
	v_add_u32 v4, v4, v12
	v_lshlrev_b32 v6, 2, v1
	s_waitcnt lgkmcnt(0)
	global_store_dword v6, v4, s[8:9]
	s_endpgm
