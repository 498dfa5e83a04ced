// 16-bit and f16 ops, eight results per lane t (out[8t..8t+7]):
// f16 add (VOP2: high half zeroed), v_mad_u16 into the high half (VOP3
// op_sel dst: low half kept), v_max3_i16 on the high half of a source,
// v_pk_add_u16, v_pk_fma_f16 with inline constants, v_dot2_i32_i16,
// v_cmp_lt_f16 with an f16 literal, v_sub_u16 with clamp.
// kernargs: out (u64); one wave.
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	v_lshlrev_b32 v20, 5, v1
	// o0
	v_mov_b32 v12, -1
	v_cvt_f16_u16 v3, v1
	v_add_f16 v12, 0.5, v3
	// o1
	v_mov_b32 v13, 0x1234
	v_mad_u16 v13, v1, 3, 7 op_sel:[0,0,0,1]
	// o2
	v_lshlrev_b32 v5, 16, v1
	v_or_b32 v5, 5, v5
	v_mov_b32 v14, 0xabcd0000
	v_max3_i16 v14, v5, 1, 2 op_sel:[1,0,0,0]
	// o3
	v_add_u32 v7, 1, v1
	v_lshl_or_b32 v15, v7, 16, v1
	s_mov_b32 s6, 0x07d003e8
	v_pk_add_u16 v15, v15, s6
	// o4: {t, 1.5} * 2.0 + 1.0
	v_mov_b32 v8, 0x3e00
	v_pack_b32_f16 v16, v3, v8
	v_pk_fma_f16 v16, v16, 2.0, 1.0
	// o5: t * 4 + (-3) * 5 + 64
	v_mov_b32 v9, 0xfffd0000
	v_or_b32 v9, v9, v1
	s_mov_b32 s7, 0x00050004
	v_dot2_i32_i16 v17, v9, s7, 64
	// o6: t < 10.0 (f16 0x4900)
	v_cmp_lt_f16 vcc, 0x4900, v3
	v_cndmask_b32 v18, 0, 1, vcc
	// o7: max(t - 10, 0)
	v_sub_u16_e64 v19, v1, 10 clamp
	global_store_dwordx4 v20, v[12:15], s[4:5]
	global_store_dwordx4 v20, v[16:19], s[4:5] offset:16
	s_endpgm
