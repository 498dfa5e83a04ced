// c[i] = a[i] + b[i] for i < n. kernargs: a, b, c (u64), n, wgsize (u32).
// s[0:1] kernarg pointer, s2 workgroup id x, v0 packed work-item ids.
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dwordx2 s[8:9], s[0:1], 0x10
	s_load_dwordx2 s[10:11], s[0:1], 0x18
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s12, s2, s11
	v_and_b32 v1, 0x3ff, v0
	v_add_u32 v1, s12, v1
	v_cmp_gt_u32 vcc, s10, v1
	s_and_saveexec_b64 s[14:15], vcc
	s_cbranch_execz .Lend
	v_lshlrev_b32 v2, 2, v1
	global_load_dword v3, v2, s[4:5]
	global_load_dword v4, v2, s[6:7]
	s_waitcnt vmcnt(0)
	v_add_f32 v3, v3, v4
	global_store_dword v2, v3, s[8:9]
.Lend:
	s_endpgm
