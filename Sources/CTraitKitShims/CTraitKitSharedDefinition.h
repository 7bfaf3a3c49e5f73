// How the shims define a variable in a header: weakly, in each Swift object that uses it, with
// the linker keeping one definition per process, like C++ inline variables.
//
// Header only, so that the library carries no separately compiled C object (whose DWARF 5 debug
// information valgrind 3.19 cannot read).

#ifndef CTRAITKIT_SHARED_DEFINITION_H
#define CTRAITKIT_SHARED_DEFINITION_H

#if defined(_WIN32)
#define CTRAITKIT_SHARED_DEFINITION __declspec(selectany)
#else
#define CTRAITKIT_SHARED_DEFINITION __attribute__((weak))
#endif

#endif
