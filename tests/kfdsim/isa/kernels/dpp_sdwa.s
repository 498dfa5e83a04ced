// DPP and SDWA forms. out[8t + k] for one wave:
// k0 quad_perm:[3,2,1,0]; k1 row_shr:1 bound_ctrl:0 (out of row -> 0);
// k2 row_shr:1 (out of row -> not written, stays -1); k3 row_mirror add;
// k4 row_bcast:15 with row_mask 0xa (rows 0 and 2 keep 1000);
// k5 wave_shr:1 bound_ctrl:0; k6 SDWA byte sources into WORD_1 (pad);
// k7 SDWA BYTE_3 into BYTE_2 (preserve).
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	v_mov_b32 v20, -1
	v_mov_b32_dpp v20, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
	v_mov_b32 v21, -1
	v_mov_b32_dpp v21, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
	v_mov_b32 v22, -1
	v_mov_b32_dpp v22, v1 row_shr:1 row_mask:0xf bank_mask:0xf
	v_mov_b32 v23, 0
	v_add_u32_dpp v23, v1, v1 row_mirror row_mask:0xf bank_mask:0xf
	v_mov_b32 v24, 1000
	v_mov_b32_dpp v24, v1 row_bcast:15 row_mask:0xa bank_mask:0xf
	v_mov_b32 v25, -1
	v_mov_b32_dpp v25, v1 wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
	v_mov_b32 v8, 0x11223344
	v_lshlrev_b32 v9, 8, v1
	v_add_u32_sdwa v26, v8, v9 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:BYTE_1
	v_mov_b32 v27, 0xaaaaaaaa
	v_mov_b32_sdwa v27, v8 dst_sel:BYTE_2 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_3
	v_lshlrev_b32 v10, 5, v1
	global_store_dwordx4 v10, v[20:23], s[4:5]
	global_store_dwordx4 v10, v[24:27], s[4:5] offset:16
	s_endpgm
