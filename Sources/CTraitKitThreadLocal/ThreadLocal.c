#include "CTraitKitThreadLocal.h"

_Thread_local void *_Nullable ctraitkit_active_record = 0;
_Thread_local void *_Nullable ctraitkit_current_cell = 0;
