// out[t] = fma((double)t, 0.5, 1.0) / 3.0 through the compiler's f64
// division sequence (div_scale, rcp, fma refinement, div_fmas,
// div_fixup). kernargs: out (u64); one wave.
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	v_cvt_f64_u32 v[2:3], v1
	v_fma_f64 v[4:5], v[2:3], 0.5, 1.0
	s_mov_b32 s8, 0
	s_mov_b32 s9, 0x40080000
	v_div_scale_f64 v[6:7], s[10:11], s[8:9], s[8:9], v[4:5]
	v_rcp_f64 v[8:9], v[6:7]
	v_fma_f64 v[10:11], -v[6:7], v[8:9], 1.0
	v_fma_f64 v[8:9], v[8:9], v[10:11], v[8:9]
	v_div_scale_f64 v[12:13], vcc, v[4:5], s[8:9], v[4:5]
	v_mul_f64 v[14:15], v[12:13], v[8:9]
	v_fma_f64 v[16:17], -v[6:7], v[14:15], v[12:13]
	v_div_fmas_f64 v[14:15], v[16:17], v[8:9], v[14:15]
	v_div_fixup_f64 v[4:5], v[14:15], s[8:9], v[4:5]
	v_lshlrev_b32 v18, 3, v1
	global_store_dwordx2 v18, v[4:5], s[4:5]
	s_endpgm
