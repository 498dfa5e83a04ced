// Device-side abort(): llvm.trap is s_trap 2.
	s_trap 2
	s_endpgm
