// SPDX-License-Identifier: MIT
// A shared library that is not the driver's report module: the driver must refuse it.
int driver_fixture_not_a_module(void) { return 0; }
