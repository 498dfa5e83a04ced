// out[t] = 0 + 1 + ... + t with a per-lane loop (divergent trip counts,
// EXEC narrowing each iteration). kernargs: out (u64); one wave.
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	v_mov_b32 v2, 0
	v_mov_b32 v3, 0
	s_mov_b64 s[6:7], exec
.Lloop:
	v_cmp_le_u32 vcc, v3, v1
	s_and_b64 exec, exec, vcc
	s_cbranch_execz .Ldone
	v_add_u32 v2, v2, v3
	v_add_u32 v3, 1, v3
	s_branch .Lloop
.Ldone:
	s_mov_b64 exec, s[6:7]
	v_lshlrev_b32 v4, 2, v1
	global_store_dword v4, v2, s[4:5]
	s_endpgm
