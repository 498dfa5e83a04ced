// MTBUF: typed buffer loads of 16 bytes per lane from `in` in several
// formats (raw buffer with OFFEN, structured with IDXEN and a range
// limit), written raw to out[lane * 32 + 4 * n] (a register per dword); typed stores of computed
// values to out + 8192. kernargs: in (u64), out (u64); one wave.
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	v_lshlrev_b32 v2, 4, v1
	v_lshlrev_b32 v3, 7, v1
	// raw resource over in: stride 0, 1024 bytes
	s_mov_b32 s8, s4
	s_and_b32 s9, s5, 0xffff
	s_movk_i32 s10, 0x400
	s_mov_b32 s11, 0x27000
	// structured resource over in: stride 16, 60 records
	s_mov_b32 s12, s4
	s_or_b32 s13, s9, 0x100000
	s_mov_b32 s14, 60
	s_mov_b32 s15, 0x27000
	// raw resource over out + 8192: 2048 bytes
	s_add_u32 s16, s6, 0x2000
	s_addc_u32 s17, s7, 0
	s_and_b32 s17, s17, 0xffff
	s_movk_i32 s18, 0x800
	s_mov_b32 s19, 0x27000
	tbuffer_load_format_xyzw v[4:7], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8_8_8, BUF_NUM_FORMAT_UNORM] offen
	tbuffer_load_format_xyzw v[8:11], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16, BUF_NUM_FORMAT_SNORM] offen offset:4
	tbuffer_load_format_xyzw v[12:15], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_2_10_10_10, BUF_NUM_FORMAT_UINT] offen offset:8
	tbuffer_load_format_xyz v[16:18], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_10_11_11, BUF_NUM_FORMAT_FLOAT] offen offset:12
	tbuffer_load_format_xyzw v[20:23], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16_16_16, BUF_NUM_FORMAT_FLOAT] offen
	tbuffer_load_format_xy v[24:25], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_8_8, BUF_NUM_FORMAT_SSCALED] offen offset:6
	tbuffer_load_format_x v26, v2, s[8:11], 0 format:[BUF_DATA_FORMAT_16, BUF_NUM_FORMAT_SINT] offen offset:2
	tbuffer_load_format_xyz v[28:30], v1, s[12:15], 0 format:[BUF_DATA_FORMAT_32_32_32, BUF_NUM_FORMAT_UINT] idxen offset:4
	tbuffer_load_format_xy v[34:35], v2, s[8:11], 0 format:[BUF_DATA_FORMAT_16_16, BUF_NUM_FORMAT_USCALED] offen offset:8
	s_waitcnt vmcnt(0)
	v_add_co_u32 v38, vcc, s6, v3
	v_mov_b32 v39, s7
	v_addc_co_u32 v39, vcc, v39, 0, vcc
	global_store_dwordx4 v[38:39], v[4:7], off
	global_store_dwordx4 v[38:39], v[8:11], off offset:16
	global_store_dwordx4 v[38:39], v[12:15], off offset:32
	global_store_dwordx4 v[38:39], v[16:19], off offset:48
	global_store_dwordx4 v[38:39], v[20:23], off offset:64
	global_store_dwordx4 v[38:39], v[24:27], off offset:80
	global_store_dwordx4 v[38:39], v[28:31], off offset:96
	global_store_dwordx4 v[38:39], v[34:37], off offset:112
	// stores
	v_cvt_f32_u32 v40, v1
	v_mul_f32 v40, 0x3c800000, v40
	v_mov_b32 v41, 0.5
	v_mov_b32 v42, 0x3fc00000
	v_mov_b32 v43, -1.0
	tbuffer_store_format_xyzw v[40:43], v2, s[16:19], 0 format:[BUF_DATA_FORMAT_8_8_8_8, BUF_NUM_FORMAT_UNORM] offen
	v_sub_u32 v44, 0, v1
	v_mul_u32_u24 v45, 0x64, v1
	tbuffer_store_format_xy v[44:45], v2, s[16:19], 0 format:[BUF_DATA_FORMAT_16_16, BUF_NUM_FORMAT_SINT] offen offset:4
	v_mov_b32 v46, -0.5
	v_mov_b32 v47, v40
	v_mov_b32 v48, -2.0
	v_mov_b32 v49, 1.0
	tbuffer_store_format_xyzw v[46:49], v2, s[16:19], 0 format:[BUF_DATA_FORMAT_2_10_10_10, BUF_NUM_FORMAT_SNORM] offen offset:8
	v_mov_b32 v50, v40
	v_mov_b32 v51, 0x47ffe000
	v_bfrev_b32 v52, 1
	v_mov_b32 v53, 0x3eaaaaab
	tbuffer_store_format_xyzw v[50:53], v2, s[16:19], 0 format:[BUF_DATA_FORMAT_16_16_16_16, BUF_NUM_FORMAT_FLOAT] offen offset:1024
	// MUBUF format ops: the resource's format (identity DST_SEL 0xfac):
	// 8_8_8_8 UINT over in; 32_32_32_32 UINT and 16_16 UINT over out + 12288
	s_mov_b32 s20, s8
	s_mov_b32 s21, s9
	s_movk_i32 s22, 0x400
	s_mov_b32 s23, 0x54fac
	buffer_load_format_xyzw v[56:59], v2, s[20:23], 0 offen
	s_add_u32 s24, s6, 0x3000
	s_addc_u32 s25, s7, 0
	s_and_b32 s25, s25, 0xffff
	s_movk_i32 s26, 0x800
	s_mov_b32 s27, 0x74fac
	s_waitcnt vmcnt(0)
	buffer_store_format_xyzw v[56:59], v2, s[24:27], 0 offen
	s_mov_b32 s27, 0x2cfac
	v_mov_b32 v60, v1
	v_mov_b32 v61, 0xffff
	buffer_store_format_xy v[60:61], v2, s[24:27], 0 offen offset:1024
	s_waitcnt vmcnt(0)
	s_endpgm
