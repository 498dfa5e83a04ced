// vkfd-bench "isa", VALU-heavy: per lane 12 dependent f32/integer VALU ops
// per loop iteration, then one store. kernargs: out (u64), iters (u32).
// Wave instructions: 12 + 15 * iters (bench_isa.c counts on this).
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_load_dword s8, s[0:1], 0x8
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	s_lshl_b32 s10, s2, 8
	v_add_u32 v1, s10, v1
	v_cvt_f32_u32 v2, v1
	v_mov_b32 v3, 1.0
	v_mov_b32 v4, 0.5
loop:
	v_fma_f32 v3, v3, v4, v2
	v_mul_f32 v5, v3, v4
	v_add_f32 v3, v5, 1.0
	v_max_f32 v3, v3, v4
	v_fma_f32 v3, v3, 0.5, v4
	v_mad_u32_u24 v6, v1, 3, v1
	v_xor_b32 v6, v6, v1
	v_add_u32 v6, v6, v1
	v_cvt_f32_u32 v7, v6
	v_mul_f32 v7, 0x2f800000, v7
	v_add_f32 v3, v3, v7
	v_min_f32 v3, 0x47000000, v3
	s_sub_u32 s8, s8, 1
	s_cmp_lg_u32 s8, 0
	s_cbranch_scc1 loop
	v_lshlrev_b32 v1, 2, v1
	global_store_dword v1, v3, s[4:5]
	s_endpgm
