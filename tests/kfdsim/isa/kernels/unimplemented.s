// An instruction the interpreter does not model (an image load: images
// are refused as illegal instructions).
	image_load v[0:3], v0, s[0:7] dmask:0xf
	s_endpgm
