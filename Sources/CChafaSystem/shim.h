// libchafa through pkg-config (its cflags reach CChafa, which wraps it); Swift imports CChafa, not this.
#include <chafa.h>
