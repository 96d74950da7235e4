#include "TempoRuntimeABI.h"

#if __has_feature(ptrauth_calls)
#include <ptrauth.h>
#endif

bool tempo_authenticates_code_pointers(void) {
#if __has_feature(ptrauth_calls)
  return true;
#else
  return false;
#endif
}

// The byte offset of a task's status: the job header (a heap object header, two words the
// scheduler owns, 32-bit flags and ID, two reserved words and the run function), the resume
// context (with a reserved word after it on 64-bit systems), then the private storage, which
// starts with the two-word exclusivity access set.
static const uintptr_t tempo_task_status_offset =
  7 * sizeof(void *) + 8 + (sizeof(void *) == 8 ? 2 : 1) * sizeof(void *) + 2 * sizeof(void *);

bool tempo_task_is_runnable(const void *task) {
  const char *status = (const char *)task + tempo_task_status_offset;
  uint32_t flags = __atomic_load_n((const uint32_t *)status, __ATOMIC_ACQUIRE);
  // IsRunning (0x800, only without priority escalation) and IsEnqueued (0x1000). With
  // escalation, the word after the flags is the execution lock, whose bits above the low two
  // name the thread that runs the task (without it, the word is unused, and zero).
  uint32_t lock = __atomic_load_n((const uint32_t *)(status + 4), __ATOMIC_ACQUIRE);
  return (flags & 0x1800) != 0 || (lock & ~(uint32_t)3) != 0;
}

bool tempo_task_is_complete(const void *task) {
  const char *status = (const char *)task + tempo_task_status_offset;
  uint32_t flags = __atomic_load_n((const uint32_t *)status, __ATOMIC_ACQUIRE);
  return (flags & 0x2000) != 0;
}

bool tempo_task_has_executor_preference(const void *task) {
  const char *status = (const char *)task + tempo_task_status_offset;
  uint32_t flags = __atomic_load_n((const uint32_t *)status, __ATOMIC_ACQUIRE);
  return (flags & 0x8000) != 0;
}

bool tempo_task_awaits_task_or_group(const void *task) {
  if (sizeof(void *) != 8) return false;
  const char *status = (const char *)task + tempo_task_status_offset;
  uint32_t flags = __atomic_load_n((const uint32_t *)status, __ATOMIC_ACQUIRE);
  if ((flags & 0x4000) == 0) return false;
  // The newest status record follows the flags and the execution lock.
  const uintptr_t *record =
    (const uintptr_t *)__atomic_load_n((const uintptr_t *)(status + 8), __ATOMIC_ACQUIRE);
  if (record == 0) return false;
  // A dependency record: the record's flags and parent, what it depends on (two words, for an
  // executor), then the kind in the low byte of the next word (the rest is padding, not
  // cleared): 1 a task, 2 a continuation, 3 a task group, 4 an executor.
  uintptr_t dependentOn = __atomic_load_n(&record[2], __ATOMIC_RELAXED);
  uint8_t kind = (uint8_t)(__atomic_load_n(&record[4], __ATOMIC_RELAXED) & 0xff);
  return dependentOn != 0 && (kind == 1 || kind == 3);
}

const void *tempo_task_resume_function(const void *task) {
  // The job header's words: a heap object header (two), the scheduler's two, the 32-bit flags
  // and ID, the voucher and a reserved word; then the resume function.
  const void *const *slot =
    (const void *const *)((const char *)task + 6 * sizeof(void *) + 8);
  const void *function = __atomic_load_n(slot, __ATOMIC_RELAXED);
#if __has_feature(ptrauth_calls)
  // Signed with the slot's address as discriminator: strip, to compare with another task's.
  if (function) function = ptrauth_strip(function, ptrauth_key_function_pointer);
#endif
  return function;
}

extern void swift_task_cancel(void *task);

void tempo_task_cancel(const void *task) { swift_task_cancel((void *)task); }

extern void *swift_task_getCurrent(void);

const void *tempo_current_task(void) { return swift_task_getCurrent(); }

extern void *swift_retain(void *object);
extern void swift_release(void *object);

void tempo_task_retain(const void *task) { swift_retain((void *)task); }

void tempo_task_release(const void *task) { swift_release((void *)task); }

#if defined(__linux__)
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t tempo_current_thread(void) {
  static __thread uint64_t thread = 0;
  if (thread == 0) thread = (uint64_t)syscall(SYS_gettid);
  return thread;
}

int tempo_thread_runs(uint64_t thread) {
  if (thread == 0) return -1;
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%llu/stat", (unsigned long long)thread);
  int file = open(path, O_RDONLY | O_CLOEXEC);
  if (file < 0) return -1;
  // "<tid> (<name>) <state> ...": the name is at most 16 bytes, and may hold parentheses, so
  // the state follows the last one.
  char text[256];
  ssize_t length = read(file, text, sizeof text - 1);
  close(file);
  if (length <= 0) return -1;
  text[length] = 0;
  const char *name_end = strrchr(text, ')');
  if (name_end == NULL || name_end[1] != ' ') return -1;
  switch (name_end[2]) {
  case 'R':
    return 1;
  case 'S':
  case 'D':
  case 'T':
  case 't':
    return 0;
  default:
    return -1;
  }
}

#elif defined(__APPLE__)
#include <mach/mach.h>
#include <pthread.h>

uint64_t tempo_current_thread(void) { return pthread_mach_thread_np(pthread_self()); }

int tempo_thread_runs(uint64_t thread) {
  if (thread == 0) return -1;
  thread_basic_info_data_t info;
  mach_msg_type_number_t count = THREAD_BASIC_INFO_COUNT;
  kern_return_t result =
    thread_info((thread_act_t)thread, THREAD_BASIC_INFO, (thread_info_t)&info, &count);
  if (result != KERN_SUCCESS) return -1;
  switch (info.run_state) {
  case TH_STATE_RUNNING:
    return 1;
  case TH_STATE_WAITING:
  case TH_STATE_UNINTERRUPTIBLE:
  case TH_STATE_STOPPED:
    return 0;
  default:
    return -1;
  }
}

#else
uint64_t tempo_current_thread(void) { return 0; }

int tempo_thread_runs(uint64_t thread) {
  (void)thread;
  return -1;
}
#endif
