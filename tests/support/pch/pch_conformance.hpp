// Precompiled for LangGraph's ported suites (tests/conformance).
#pragma once
#include "conformance.hpp"
#include "pch_common.hpp"
#include "support/expect_error.hpp"
