/* assert_near(a, b, eps): |a - b| <= eps, in double precision, for the unit tests. */
#ifndef TT_ASSERT_NEAR_H
#define TT_ASSERT_NEAR_H

#include <math.h>

/* cmocka's assert_float_equal() goes through float: 7 digits, not enough. */
#define assert_near(a, b, eps) do {						\
	double a_ = (a), b_ = (b);						\
	if (!(fabs(a_ - b_) <= (eps))) {					\
		print_error("%.17g != %.17g (eps %g)\n", a_, b_, (double)(eps));	\
		_fail(__FILE__, __LINE__);					\
	}									\
} while (0)

#endif
