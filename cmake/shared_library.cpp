// libsuperstep.so is made of the project's static libraries, linked whole (cmake/package.cmake);
// a shared library needs at least one source of its own.
