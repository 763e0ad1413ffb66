#pragma once

// The documents the server gives about itself: its OpenAPI description (server/openapi.json,
// GET /openapi.json) and the page that shows it (server/docs.html, GET /docs), built into the
// program from those files (cluster/CMakeLists.txt).

#include <string_view>

namespace superstep::server {

std::string_view openapi_json();
std::string_view docs_html();

}  // namespace superstep::server
