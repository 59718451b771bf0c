/*
 * The verifier's verdict (tt_bpf_verifier_says): which lines of its log a
 * user sees, and whether they say the kernel lacks something (skip) or our
 * program is wrong (fail). The logs are verifier output, as libbpf passes
 * it on; the missing-helper one cannot be had from this kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tracers/tracer.h"
#include "tracers/bpf/bpf_util.h"

#define END "-- END PROG LOAD LOG --\n"

/* This kernel's (6.18) log of common.bpf.h's tt_fault_verifier. */
static const char stack_log[] =
	"arg#0 reference type('UNKNOWN ') size cannot be determined: -22\n"
	"0: R1=ctx() R10=fp0\n"
	"; asm volatile(\"%0 = *(u64 *)(r10 + 8)\" : \"=r\"(v)); @ common.bpf.h:204\n"
	"0: (79) r0 = *(u64 *)(r10 +8)\n"
	"invalid read from stack R10 off=8 size=8\n"
	"processed 1 insns (limit 1000000) max_states_per_insn 0 total_states 0 "
	"peak_states 0 mark_read 0\n" END;

/* A 5.4 kernel has no ring buffer: the helper is unknown to it. */
static const char helper_log[] =
	"0: R1=ctx(id=0,off=0,imm=0) R10=fp0\n"
	"0: (18) r1 = 0xffff888003a1c000      ; R1_w=map_ptr(off=0,ks=0,vs=0,imm=0)\n"
	"2: (b7) r2 = 16                       ; R2_w=16\n"
	"3: (b7) r3 = 0                        ; R3_w=0\n"
	"4: (85) call bpf_ringbuf_reserve#131\n"
	"unknown func bpf_ringbuf_reserve#131\n"
	"processed 4 insns (limit 1000000) max_states_per_insn 0 total_states 0 "
	"peak_states 0 mark_read 0\n" END;

/* A program of ours that dereferences a scalar, after a branch. */
static const char mem_log[] =
	"0: R1=ctx() R10=fp0\n"
	"0: (b7) r1 = 0                        ; R1_w=0\n"
	"1: (15) if r2 == 0x0 goto pc+1\n"
	"from 1 to 3: R1_w=0 R10=fp0\n"
	"3: R1_w=0 R10=fp0\n"
	"3: (79) r0 = *(u64 *)(r1 +0)\n"
	"R1 invalid mem access 'scalar'\n"
	"verification time 12 usec\n"
	"stack depth 0\n"
	"processed 4 insns (limit 1000000) max_states_per_insn 0 total_states 0 "
	"peak_states 0 mark_read 0\n" END
	"this is after the log and never read\n";

static void test_rejected(void **state)
{
	char out[TT_REASON_MAX];

	(void)state;
	assert_int_equal(tt_bpf_verifier_says(stack_log, out, sizeof(out)), TT_FAIL);
	assert_string_equal(out, "0: (79) r0 = *(u64 *)(r10 +8) | "
			    "invalid read from stack R10 off=8 size=8");
	/* register states and branch notes are not what went wrong */
	assert_int_equal(tt_bpf_verifier_says(mem_log, out, sizeof(out)), TT_FAIL);
	assert_string_equal(out, "3: (79) r0 = *(u64 *)(r1 +0) | R1 invalid mem access 'scalar'");
}

static void test_kernel_lacks(void **state)
{
	char out[TT_REASON_MAX];

	(void)state;
	assert_int_equal(tt_bpf_verifier_says(helper_log, out, sizeof(out)), TT_SKIP);
	assert_string_equal(out, "4: (85) call bpf_ringbuf_reserve#131 | "
			    "unknown func bpf_ringbuf_reserve#131");
	assert_int_equal(tt_bpf_verifier_says("0: (85) call unknown#195896080\n"
					      "invalid func unknown#195896080\n", out,
					      sizeof(out)), TT_SKIP);
	assert_int_equal(tt_bpf_verifier_says("0: (85) call bpf_probe_write_user#36\n"
					      "program of this type cannot use helper "
					      "bpf_probe_write_user#36\n", out, sizeof(out)),
			 TT_SKIP);
}

/* A short buffer cuts the text, not the verdict; an empty log says nothing. */
static void test_edges(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(tt_bpf_verifier_says(helper_log, out, sizeof(out)), TT_SKIP);
	assert_string_equal(out, "4: (85) call bp");
	assert_int_equal(tt_bpf_verifier_says(END, out, sizeof(out)), TT_FAIL);
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rejected),
		cmocka_unit_test(test_kernel_lacks),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
