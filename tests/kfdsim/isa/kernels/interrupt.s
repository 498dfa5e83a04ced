// Each workgroup interrupts the host with M0 = its id + 1 (s_sendmsg
// MSG_INTERRUPT, as ROCm's signal code does), then ends.
	s_add_u32 m0, s2, 1
	s_sendmsg sendmsg(MSG_INTERRUPT)
	s_endpgm
