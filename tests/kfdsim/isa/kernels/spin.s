// Never ends: the engine must still be stoppable.
.Lspin:
	s_branch .Lspin
