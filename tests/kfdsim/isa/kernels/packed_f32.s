// Packed FP32 (gfx90a VOP3P): out[2t..2t+1] = {t * 2 + 0.5, t * 4 - 1} via
// v_pk_mov_b32 (op_sel picks halves), v_pk_fma_f32, v_pk_mul_f32 and
// v_pk_add_f32. kernargs: out (u64); one wave.
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	v_cvt_f32_u32 v2, v1
	v_mov_b32 v3, v2
	s_mov_b32 s6, 2.0
	s_mov_b32 s7, 4.0
	s_mov_b32 s8, 0.5
	s_mov_b32 s9, -1.0
	v_pk_mov_b32 v[4:5], s[6:7], s[6:7] op_sel:[0,1]
	v_pk_mov_b32 v[6:7], s[8:9], s[8:9] op_sel:[0,1]
	v_pk_fma_f32 v[8:9], v[2:3], v[4:5], v[6:7]
	v_pk_mul_f32 v[10:11], v[8:9], 1.0 op_sel_hi:[1,0]
	v_pk_add_f32 v[10:11], v[10:11], 0 op_sel_hi:[1,0]
	v_lshlrev_b32 v12, 3, v1
	global_store_dwordx2 v12, v[10:11], s[4:5]
	s_endpgm
