#include "TempoRuntimeABI.h"

bool tempo_authenticates_code_pointers(void) {
#if __has_feature(ptrauth_calls)
  return true;
#else
  return false;
#endif
}
