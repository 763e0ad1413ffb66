// The Boost.Test module every suite links: its main and its initialisation, compiled once.
#define BOOST_TEST_MODULE superstep
#include <boost/test/unit_test.hpp>
