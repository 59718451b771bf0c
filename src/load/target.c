/*
 * libtracetax-target.so: the function the func workloads call. It lives in a
 * library of its own because LD_PRELOAD cannot interpose a function that the
 * executable itself defines; uprobes attach to it here.
 *
 * What a uprobe costs depends on the instruction it replaces: the kernel
 * emulates a few (nop, push) and single-steps the rest out of line, which in
 * a VM costs ~30x more (docs/tracers.md). A typical function entry is
 * "push %rbp" (frame pointers); gcc leaves the frame out of a leaf this
 * small whatever the flags, so on x86-64 the entry is written out.
 */
#if defined(__x86_64__)
__asm__(".text\n"
	".globl tt_func\n"
	".type tt_func, @function\n"
	"tt_func:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea 1(%rdi), %eax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size tt_func, .-tt_func\n");
#else
__attribute__((noinline, visibility("default"))) int tt_func(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}
#endif
