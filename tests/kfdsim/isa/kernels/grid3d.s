// Initial wave state of a 3-D dispatch: s[0:1] dispatch pointer, s[2:3]
// kernargs {out, WX, WY, WZ, GX, GY}, s4..s6 workgroup ids, v0 packed
// work-item ids x | y << 10 | z << 20. Every work-item stores
// {v0, wgx | wgy << 10 | wgz << 20, packet dword 1 (workgroup size x | y << 16),
//  packet grid_size x} at out[16 * (gx + GX * (gy + GY * gz))].
	s_load_dwordx2 s[8:9], s[2:3], 0x0
	s_load_dwordx4 s[12:15], s[2:3], 0x8
	s_load_dword s16, s[2:3], 0x18
	s_load_dword s10, s[0:1], 0x4
	s_load_dword s11, s[0:1], 0xc
	v_and_b32 v1, 0x3ff, v0
	v_bfe_u32 v2, v0, 10, 10
	v_bfe_u32 v3, v0, 20, 10
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s17, s4, s12
	v_add_u32 v1, s17, v1
	s_mul_i32 s17, s5, s13
	v_add_u32 v2, s17, v2
	s_mul_i32 s17, s6, s14
	v_add_u32 v3, s17, v3
	v_mad_u32_u24 v4, v3, s16, v2
	v_mad_u32_u24 v4, v4, s15, v1
	v_lshlrev_b32 v4, 4, v4
	s_lshl_b32 s18, s5, 10
	s_or_b32 s18, s4, s18
	s_lshl_b32 s19, s6, 20
	s_or_b32 s18, s18, s19
	v_mov_b32 v6, v0
	v_mov_b32 v7, s18
	v_mov_b32 v8, s10
	v_mov_b32 v9, s11
	global_store_dwordx4 v4, v[6:9], s[8:9]
	s_endpgm
