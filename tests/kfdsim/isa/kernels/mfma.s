// MFMA: one v_mfma_* per selector, on per-lane A, B and C read from memory;
// the test computes D on the host and compares. Generated case list (see
// test_isa_kernels.c's mfma_cases, same order). kernargs: in (u64), out
// (u64), selector (u32). Per lane, in: A (2 dwords), B (2), C (32) at
// lane * 144; out: D (32 dwords) at lane * 128. One wave.
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dword s8, s[0:1], 0x10
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	v_mul_u32_u24 v2, 0x90, v1
	global_load_dwordx4 v[4:7], v2, s[4:5]
	global_load_dwordx4 v[32:35], v2, s[4:5] offset:16
	global_load_dwordx4 v[36:39], v2, s[4:5] offset:32
	global_load_dwordx4 v[40:43], v2, s[4:5] offset:48
	global_load_dwordx4 v[44:47], v2, s[4:5] offset:64
	global_load_dwordx4 v[48:51], v2, s[4:5] offset:80
	global_load_dwordx4 v[52:55], v2, s[4:5] offset:96
	global_load_dwordx4 v[56:59], v2, s[4:5] offset:112
	global_load_dwordx4 v[60:63], v2, s[4:5] offset:128
	s_waitcnt vmcnt(0)
	// C to a[0:31], A to a[32:33], B to a[34:35] for the AGPR forms
	.set i, 0
	.rept 32
	v_accvgpr_write_b32 a[i], v[32+i]
	.set i, i+1
	.endr
	v_accvgpr_write_b32 a32, v4
	v_accvgpr_write_b32 a33, v5
	v_accvgpr_write_b32 a34, v6
	v_accvgpr_write_b32 a35, v7
	s_cmp_eq_u32 s8, 0
	s_cbranch_scc1 case0
	s_cmp_eq_u32 s8, 1
	s_cbranch_scc1 case1
	s_cmp_eq_u32 s8, 2
	s_cbranch_scc1 case2
	s_cmp_eq_u32 s8, 3
	s_cbranch_scc1 case3
	s_cmp_eq_u32 s8, 4
	s_cbranch_scc1 case4
	s_cmp_eq_u32 s8, 5
	s_cbranch_scc1 case5
	s_cmp_eq_u32 s8, 6
	s_cbranch_scc1 case6
	s_cmp_eq_u32 s8, 7
	s_cbranch_scc1 case7
	s_cmp_eq_u32 s8, 8
	s_cbranch_scc1 case8
	s_cmp_eq_u32 s8, 9
	s_cbranch_scc1 case9
	s_cmp_eq_u32 s8, 10
	s_cbranch_scc1 case10
	s_cmp_eq_u32 s8, 11
	s_cbranch_scc1 case11
	s_cmp_eq_u32 s8, 12
	s_cbranch_scc1 case12
	s_cmp_eq_u32 s8, 13
	s_cbranch_scc1 case13
	s_cmp_eq_u32 s8, 14
	s_cbranch_scc1 case14
	s_cmp_eq_u32 s8, 15
	s_cbranch_scc1 case15
	s_cmp_eq_u32 s8, 16
	s_cbranch_scc1 case16
	s_cmp_eq_u32 s8, 17
	s_cbranch_scc1 case17
	s_cmp_eq_u32 s8, 18
	s_cbranch_scc1 case18
	s_cmp_eq_u32 s8, 19
	s_cbranch_scc1 case19
	s_cmp_eq_u32 s8, 20
	s_cbranch_scc1 case20
	s_cmp_eq_u32 s8, 21
	s_cbranch_scc1 case21
	s_cmp_eq_u32 s8, 22
	s_cbranch_scc1 case22
	s_cmp_eq_u32 s8, 23
	s_cbranch_scc1 case23
	s_cmp_eq_u32 s8, 24
	s_cbranch_scc1 case24
	s_cmp_eq_u32 s8, 25
	s_cbranch_scc1 case25
	s_cmp_eq_u32 s8, 26
	s_cbranch_scc1 case26
	s_cmp_eq_u32 s8, 27
	s_cbranch_scc1 case27
	s_cmp_eq_u32 s8, 28
	s_cbranch_scc1 case28
	s_cmp_eq_u32 s8, 29
	s_cbranch_scc1 case29
	s_cmp_eq_u32 s8, 30
	s_cbranch_scc1 case30
	s_cmp_eq_u32 s8, 31
	s_cbranch_scc1 case31
	s_cmp_eq_u32 s8, 32
	s_cbranch_scc1 case32
	s_cmp_eq_u32 s8, 33
	s_cbranch_scc1 case33
	s_cmp_eq_u32 s8, 34
	s_cbranch_scc1 case34
	s_cmp_eq_u32 s8, 35
	s_cbranch_scc1 case35
	s_cmp_eq_u32 s8, 36
	s_cbranch_scc1 case36
	s_cmp_eq_u32 s8, 37
	s_cbranch_scc1 case37
	s_cmp_eq_u32 s8, 38
	s_cbranch_scc1 case38
	s_cmp_eq_u32 s8, 39
	s_cbranch_scc1 case39
	s_cmp_eq_u32 s8, 40
	s_cbranch_scc1 case40
	s_endpgm
case0:
	v_mfma_f32_32x32x1f32 v[64:95], v4, v6, v[32:63]
	s_nop 7
	s_nop 7
	s_branch store
case1:
	v_mfma_f32_16x16x1f32 v[64:79], v4, v6, v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case2:
	v_mfma_f32_4x4x1f32 v[64:67], v4, v6, v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case3:
	v_mfma_f32_32x32x2f32 v[64:79], v4, v6, v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case4:
	v_mfma_f32_16x16x4f32 v[64:67], v4, v6, v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case5:
	v_mfma_f32_32x32x4f16 v[64:95], v[4:5], v[6:7], v[32:63]
	s_nop 7
	s_nop 7
	s_branch store
case6:
	v_mfma_f32_16x16x4f16 v[64:79], v[4:5], v[6:7], v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case7:
	v_mfma_f32_4x4x4f16 v[64:67], v[4:5], v[6:7], v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case8:
	v_mfma_f32_32x32x8f16 v[64:79], v[4:5], v[6:7], v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case9:
	v_mfma_f32_16x16x16f16 v[64:67], v[4:5], v[6:7], v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case10:
	v_mfma_i32_32x32x4i8 v[64:95], v4, v6, v[32:63]
	s_nop 7
	s_nop 7
	s_branch store
case11:
	v_mfma_i32_16x16x4i8 v[64:79], v4, v6, v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case12:
	v_mfma_i32_4x4x4i8 v[64:67], v4, v6, v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case13:
	v_mfma_i32_32x32x8i8 v[64:79], v4, v6, v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case14:
	v_mfma_i32_16x16x16i8 v[64:67], v4, v6, v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case15:
	v_mfma_f32_32x32x4bf16_1k v[64:95], v[4:5], v[6:7], v[32:63]
	s_nop 7
	s_nop 7
	s_branch store
case16:
	v_mfma_f32_16x16x4bf16_1k v[64:79], v[4:5], v[6:7], v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case17:
	v_mfma_f32_4x4x4bf16_1k v[64:67], v[4:5], v[6:7], v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case18:
	v_mfma_f32_32x32x8bf16_1k v[64:79], v[4:5], v[6:7], v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case19:
	v_mfma_f32_16x16x16bf16_1k v[64:67], v[4:5], v[6:7], v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case20:
	v_mfma_f32_32x32x2bf16 v[64:95], v4, v6, v[32:63]
	s_nop 7
	s_nop 7
	s_branch store
case21:
	v_mfma_f32_16x16x2bf16 v[64:79], v4, v6, v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case22:
	v_mfma_f32_4x4x2bf16 v[64:67], v4, v6, v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case23:
	v_mfma_f32_32x32x4bf16 v[64:79], v4, v6, v[32:47]
	s_nop 7
	s_nop 7
	s_branch store
case24:
	v_mfma_f32_16x16x8bf16 v[64:67], v4, v6, v[32:35]
	s_nop 7
	s_nop 7
	s_branch store
case25:
	v_mfma_f64_16x16x4f64 v[64:71], v[4:5], v[6:7], v[32:39]
	s_nop 7
	s_nop 7
	s_branch store
case26:
	v_mfma_f64_4x4x4f64 v[64:65], v[4:5], v[6:7], v[32:33]
	s_nop 7
	s_nop 7
	s_branch store
case27:
	v_mfma_f32_32x32x8f16 a[0:15], a[32:33], a[34:35], a[0:15]
	s_nop 7
	s_nop 7
	s_branch from_agpr
case28:
	v_mfma_f64_16x16x4f64 a[0:7], v[4:5], a[34:35], a[0:7]
	s_nop 7
	s_nop 7
	s_branch from_agpr
case29:
	v_mfma_i32_16x16x4i8 a[0:15], v4, v6, a[0:15]
	s_nop 7
	s_nop 7
	s_branch from_agpr
case30:
	v_mfma_f32_16x16x4f32 v[64:67], v4, v6, 1.0
	s_nop 7
	s_nop 7
	s_branch store
case31:
	v_mfma_i32_4x4x4i8 v[64:67], v4, v6, 0
	s_nop 7
	s_nop 7
	s_branch store
case32:
	v_mfma_f64_4x4x4f64 v[64:65], v[4:5], v[6:7], -2.0
	s_nop 7
	s_nop 7
	s_branch store
case33:
	v_mfma_f32_4x4x1f32 v[64:67], v4, v6, v[32:35] cbsz:2 abid:1 blgp:3
	s_nop 7
	s_nop 7
	s_branch store
case34:
	v_mfma_f32_32x32x1f32 v[64:95], v4, v6, v[32:63] cbsz:1 abid:1 blgp:1
	s_nop 7
	s_nop 7
	s_branch store
case35:
	v_mfma_f32_16x16x4f16 v[64:79], v[4:5], v[6:7], v[32:47] cbsz:2 abid:3 blgp:6
	s_nop 7
	s_nop 7
	s_branch store
case36:
	v_mfma_i32_4x4x4i8 v[64:67], v4, v6, v[32:35] cbsz:4 abid:9 blgp:7
	s_nop 7
	s_nop 7
	s_branch store
case37:
	v_mfma_f32_16x16x16bf16_1k v[64:67], v[4:5], v[6:7], v[32:35] blgp:2
	s_nop 7
	s_nop 7
	s_branch store
case38:
	v_mfma_f32_32x32x2bf16 v[64:95], v4, v6, v[32:63] cbsz:1 blgp:5
	s_nop 7
	s_nop 7
	s_branch store
case39:
	v_mfma_f32_16x16x1f32 v[64:79], v4, v6, v[32:47] cbsz:1 abid:1 blgp:4
	s_nop 7
	s_nop 7
	s_branch store
case40:
	v_mfma_f32_4x4x1f32 v[4:7], v4, v6, v[32:35]
	s_nop 7
	s_nop 7
	v_mov_b32 v64, v4
	v_mov_b32 v65, v5
	v_mov_b32 v66, v6
	v_mov_b32 v67, v7
	s_branch store
from_agpr:
	.set i, 0
	.rept 32
	v_accvgpr_read_b32 v[64+i], a[i]
	.set i, i+1
	.endr
store:
	v_lshlrev_b32 v3, 7, v1
	global_store_dwordx4 v3, v[64:67], s[6:7] offset:0
	global_store_dwordx4 v3, v[68:71], s[6:7] offset:16
	global_store_dwordx4 v3, v[72:75], s[6:7] offset:32
	global_store_dwordx4 v3, v[76:79], s[6:7] offset:48
	global_store_dwordx4 v3, v[80:83], s[6:7] offset:64
	global_store_dwordx4 v3, v[84:87], s[6:7] offset:80
	global_store_dwordx4 v3, v[88:91], s[6:7] offset:96
	global_store_dwordx4 v3, v[92:95], s[6:7] offset:112
	s_endpgm
