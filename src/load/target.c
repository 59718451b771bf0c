/*
 * libtracetax-target.so: the function the func workloads call. It lives in a
 * library of its own because LD_PRELOAD cannot interpose a function that the
 * executable itself defines; uprobes attach to it here. Kept out of the
 * inliner and away from tail calls, as the kernel's BPF bench does.
 */
__attribute__((noinline, visibility("default"))) int tt_func(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}
