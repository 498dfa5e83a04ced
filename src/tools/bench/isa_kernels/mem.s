// vkfd-bench "isa", memory-bound: a grid-stride copy, 16 bytes per lane
// per iteration (a load, a wait, a store and 7 scalar instructions).
// kernargs: src (u64), dst (u64), iters (u32), stride in bytes (u32).
// Wave instructions: 8 + 10 * iters (bench_isa.c counts on this).
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dwordx2 s[8:9], s[0:1], 0x10
	s_waitcnt lgkmcnt(0)
	v_and_b32 v1, 0x3ff, v0
	s_lshl_b32 s10, s2, 8
	v_add_u32 v1, s10, v1
	v_lshlrev_b32 v1, 4, v1
loop:
	global_load_dwordx4 v[2:5], v1, s[4:5]
	s_waitcnt vmcnt(0)
	global_store_dwordx4 v1, v[2:5], s[6:7]
	s_add_u32 s4, s4, s9
	s_addc_u32 s5, s5, 0
	s_add_u32 s6, s6, s9
	s_addc_u32 s7, s7, 0
	s_sub_u32 s8, s8, 1
	s_cmp_lg_u32 s8, 0
	s_cbranch_scc1 loop
	s_endpgm
