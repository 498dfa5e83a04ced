// An MFMA with only some lanes on: not modelled, refused.
	s_mov_b64 exec, 0xffff
	v_mfma_f32_4x4x1f32 v[4:7], v0, v1, v[4:7]
	s_endpgm
