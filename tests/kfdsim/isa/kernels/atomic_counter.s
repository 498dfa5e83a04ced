// Every work-item takes a ticket: out[gid] = atomic_add(counter, 1).
// kernargs: counter, out (u64); workgroups of 64.
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	s_lshl_b32 s8, s2, 6
	v_add_u32 v1, s8, v1
	v_mov_b32 v2, 1
	v_mov_b32 v3, 0
	global_atomic_add v4, v3, v2, s[4:5] glc
	v_lshlrev_b32 v5, 2, v1
	s_waitcnt vmcnt(0)
	global_store_dword v5, v4, s[6:7]
	s_endpgm
