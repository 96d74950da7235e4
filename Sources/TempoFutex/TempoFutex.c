// The contended paths of TempoFutex.h's lock (see there).

#include "TempoFutex.h"

#if defined(__linux__)

#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline void tempo_futex_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

void tempo_futex_lock_contended(uint32_t *word) {
  // Tempo holds a lock for a short stretch of work, on a thread that is usually running:
  // a short spin takes it without a system call.
  for (int spin = 0; spin < 64; spin++) {
    tempo_futex_relax();
    uint32_t expected = 0;
    if (__atomic_load_n(word, __ATOMIC_RELAXED) == 0 &&
        __atomic_compare_exchange_n(word, &expected, 1, false, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED)) {
      return;
    }
  }
  // Marked contended, so that the unlock wakes a sleeper. Taken when the exchange finds it
  // released (then marked contended for safety: another thread may sleep on it); otherwise
  // asleep until the word changes from 2.
  while (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) != 0) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
  }
}

void tempo_futex_wake(uint32_t *word) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

#endif  // defined(__linux__)
