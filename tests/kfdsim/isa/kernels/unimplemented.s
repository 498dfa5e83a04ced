// An instruction the interpreter does not model (MFMA).
	v_mfma_f32_4x4x1f32 a[0:3], v0, v0, a[0:3]
	s_endpgm
