// A load 16 bytes past the pointer in the kernargs.
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_mov_b32 v1, 0
	global_load_dword v2, v1, s[4:5] offset:16
	s_waitcnt vmcnt(0)
	s_endpgm
