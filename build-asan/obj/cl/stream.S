	.section .rodata
	.global pp_cl_stream
	.type pp_cl_stream, @object
pp_cl_stream:
	.incbin "kernels/opencl/stream.cl"
	.byte 0
	.section .note.GNU-stack,"",@progbits
