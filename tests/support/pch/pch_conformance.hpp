// Precompiled for LangGraph's ported suites (tests/conformance).
#pragma once
#include "pch_common.hpp"
#include "conformance.hpp"
#include "support/expect_error.hpp"
