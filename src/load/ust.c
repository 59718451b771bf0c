/* The tracepoint's definition and its registration constructor (src/load/ust.h). */
#ifdef TT_HAVE_UST
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "load/ust.h"
#else
typedef int tt_ust_none;	/* ISO C wants something in a translation unit */
#endif
