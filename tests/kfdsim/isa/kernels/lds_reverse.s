// Workgroups of 256: out[g*256 + t] = in[g*256 + 255 - t] through LDS and
// s_barrier across the four waves. kernargs: in, out (u64).
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	s_lshl_b32 s8, s2, 8
	v_add_u32 v2, s8, v1
	v_lshlrev_b32 v3, 2, v2
	global_load_dword v4, v3, s[4:5]
	v_lshlrev_b32 v5, 2, v1
	s_waitcnt vmcnt(0)
	ds_write_b32 v5, v4
	s_waitcnt lgkmcnt(0)
	s_barrier
	v_sub_u32 v6, 255, v1
	v_lshlrev_b32 v6, 2, v6
	ds_read_b32 v7, v6
	s_waitcnt lgkmcnt(0)
	global_store_dword v3, v7, s[6:7]
	s_endpgm
