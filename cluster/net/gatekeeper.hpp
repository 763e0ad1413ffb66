#pragma once

// The accepting side of a process's links: a thread accepts, exchanges hellos and runs the
// TLS handshake of each new connection, bounded in time and number, then hands finished ones
// to CAF's BASP broker through a socket pair that CAF watches as if it were the listening
// socket. Internal to the transport.

#include <caf/io/doorman.hpp>

#include "net/link.hpp"

namespace superstep::net::links {

class gatekeeper;
using gatekeeper_ptr = std::shared_ptr<gatekeeper>;

/// Starts accepting on `listener` (a listening socket, owned from here on). Throws
/// superstep::error when the thread's resources cannot be had.
gatekeeper_ptr start_gatekeeper(state_ptr st, native_socket listener);

/// Stops the accepting thread (the connections it holds are closed with it).
void stop_gatekeeper(gatekeeper& g);

/// The doorman CAF's BASP broker adopts for the gatekeeper's ready links.
caf::io::doorman_ptr make_link_doorman(default_mpx& mpx, state_ptr st, gatekeeper_ptr g);

}  // namespace superstep::net::links
