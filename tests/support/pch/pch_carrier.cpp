// Compiles an area's precompiled header once (tests/CMakeLists.txt, superstep_test_pch); the
// suites of the area reuse it. Never run.
int superstep_pch_carrier();
