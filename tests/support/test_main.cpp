// The one Boost.Test main shared by every test executable.
#define BOOST_TEST_MODULE bloodraven
#include <boost/test/unit_test.hpp>
