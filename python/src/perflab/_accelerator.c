/* perflab._accelerator: the span probe's hot path in C.
 *
 * The same bookkeeping as the pure-Python probes of _probes.py and
 * _tables.py, on the same objects, so that everything else (asyncio task
 * stacks, measured coroutines, the report, the trace) reads and writes them
 * unchanged:
 *
 *   SpanSlot     one site's figures on one thread (_tables.SpanSlot); the
 *                histogram is a C array (10 KB), read as the same dict of
 *                bucket counts through `histogram`, written through
 *                record_call();
 *   Stack        open spans of a thread or a task (_tables.Stack): `frames`
 *                is the same list of (site, slot, saved children_ns, start)
 *                tuples;
 *   TableFields  the fields of a thread table a span touches, the base of
 *                _tables.ThreadTable;
 *   Site         a span site whose __enter__ and __exit__ are the probe,
 *                the base of _probes.Site.
 *
 * configure() hands over what the probes call back into: the registry's
 * table() for a thread's first probe, _tables.stack_of once asyncio is
 * imported, the _tables module (where stack_of binds asyncio's running-loop
 * reader) and the events a thread's timeline keeps.
 *
 * The clock is perf_counter_ns's: CLOCK_MONOTONIC on Linux, and
 * PyTime_PerfCounterRaw elsewhere from Python 3.13; anywhere else, and with
 * a compiler other than GCC or Clang (__builtin_clzll, _Thread_local), this
 * file does not build and the package stays pure Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#if !defined(__linux__) && PY_VERSION_HEX < 0x030D0000
#error "perflab's accelerator needs perf_counter's clock: CLOCK_MONOTONIC (Linux) or Python 3.13"
#endif

#if PY_VERSION_HEX < 0x03090000
#define PyObject_CallNoArgs(f) PyObject_CallFunctionObjArgs((f), NULL)
#define PyObject_CallOneArg(f, a) PyObject_CallFunctionObjArgs((f), (a), NULL)
#define Py_SET_SIZE(o, n) (Py_SIZE(o) = (n))
#endif

/* As _histogram.py: values below 64 ns a bucket each, then 32 per power of two. */
#define SUB_BUCKET_BITS 5
#define TOP_POWER 44
#define BUCKETS (((TOP_POWER - SUB_BUCKET_BITS) + 2) << SUB_BUCKET_BITS)
/* _tables.TRACE_SPAN */
#define TRACE_SPAN 0

static inline long long
now_ns(void)
{
#if defined(__linux__)
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
#else
    PyTime_t now;
    PyTime_PerfCounterRaw(&now);
    return (long long)now;
#endif
}

static inline Py_ssize_t
bucket_of(long long elapsed)
{
    if (elapsed < 64)
        return elapsed > 0 ? (Py_ssize_t)elapsed : 0;
    int shift = 64 - __builtin_clzll((unsigned long long)elapsed) - 1 - SUB_BUCKET_BITS;
    Py_ssize_t bucket = ((Py_ssize_t)shift << SUB_BUCKET_BITS) + (Py_ssize_t)(elapsed >> shift);
    return bucket < BUCKETS ? bucket : BUCKETS - 1;
}

/* ---- SpanSlot ---------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    long long calls, call_ns, inclusive_ns, self_ns, min_ns, max_ns;
    long long unwound, active, polls, poll_ns, cancelled;
    unsigned long long *buckets; /* BUCKETS counts, allocated on the first call */
} SpanSlot;

static PyTypeObject SpanSlotType;

static PyObject *
slot_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    SpanSlot *slot = (SpanSlot *)type->tp_alloc(type, 0);
    if (slot == NULL)
        return NULL;
    slot->min_ns = LLONG_MAX; /* no call yet */
    slot->buckets = calloc(BUCKETS, sizeof(*slot->buckets));
    if (slot->buckets == NULL) {
        Py_DECREF(slot);
        return PyErr_NoMemory();
    }
    return (PyObject *)slot;
}

static void
slot_dealloc(SpanSlot *slot)
{
    free(slot->buckets);
    Py_TYPE(slot)->tp_free((PyObject *)slot);
}

/* One completed call of `elapsed` ns: calls, sum, extremes, histogram. */
static inline void
slot_record(SpanSlot *slot, long long elapsed)
{
    slot->calls += 1;
    slot->call_ns += elapsed;
    if (elapsed < slot->min_ns)
        slot->min_ns = elapsed;
    if (elapsed > slot->max_ns)
        slot->max_ns = elapsed;
    slot->buckets[bucket_of(elapsed)] += 1;
}

static PyObject *
slot_record_call(SpanSlot *slot, PyObject *arg)
{
    long long elapsed = PyLong_AsLongLong(arg);
    if (elapsed == -1 && PyErr_Occurred())
        return NULL;
    slot_record(slot, elapsed);
    Py_RETURN_NONE;
}

static PyObject *
slot_histogram(SpanSlot *slot, void *closure)
{
    PyObject *histogram = PyDict_New();
    if (histogram == NULL || slot->buckets == NULL)
        return histogram;
    for (Py_ssize_t bucket = 0; bucket < BUCKETS; bucket++) {
        if (slot->buckets[bucket] == 0)
            continue;
        PyObject *key = PyLong_FromSsize_t(bucket);
        PyObject *count = PyLong_FromUnsignedLongLong(slot->buckets[bucket]);
        if (key == NULL || count == NULL || PyDict_SetItem(histogram, key, count) < 0) {
            Py_XDECREF(key);
            Py_XDECREF(count);
            Py_DECREF(histogram);
            return NULL;
        }
        Py_DECREF(key);
        Py_DECREF(count);
    }
    return histogram;
}

static PyMemberDef slot_members[] = {
    {"calls", T_LONGLONG, offsetof(SpanSlot, calls), 0, NULL},
    {"call_ns", T_LONGLONG, offsetof(SpanSlot, call_ns), 0, NULL},
    {"inclusive_ns", T_LONGLONG, offsetof(SpanSlot, inclusive_ns), 0, NULL},
    {"self_ns", T_LONGLONG, offsetof(SpanSlot, self_ns), 0, NULL},
    {"min_ns", T_LONGLONG, offsetof(SpanSlot, min_ns), 0, NULL},
    {"max_ns", T_LONGLONG, offsetof(SpanSlot, max_ns), 0, NULL},
    {"unwound", T_LONGLONG, offsetof(SpanSlot, unwound), 0, NULL},
    {"active", T_LONGLONG, offsetof(SpanSlot, active), 0, NULL},
    {"polls", T_LONGLONG, offsetof(SpanSlot, polls), 0, NULL},
    {"poll_ns", T_LONGLONG, offsetof(SpanSlot, poll_ns), 0, NULL},
    {"cancelled", T_LONGLONG, offsetof(SpanSlot, cancelled), 0, NULL},
    {NULL},
};

static PyGetSetDef slot_getset[] = {
    {"histogram", (getter)slot_histogram, NULL, "bucket index -> calls, for the buckets with calls", NULL},
    {NULL},
};

static PyMethodDef slot_methods[] = {
    {"record_call", (PyCFunction)slot_record_call, METH_O, "Counts one completed call of `elapsed` ns."},
    {NULL},
};

static PyTypeObject SpanSlotType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "perflab._accelerator.SpanSlot",
    .tp_basicsize = sizeof(SpanSlot),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Figures of one span site on one thread, in nanoseconds.",
    .tp_new = slot_new,
    .tp_dealloc = (destructor)slot_dealloc,
    .tp_members = slot_members,
    .tp_getset = slot_getset,
    .tp_methods = slot_methods,
};

/* ---- Stack ------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *frames; /* list of (site, slot, saved children_ns, start) */
    long long children_ns, polls;
} Stack;

static PyTypeObject StackType;

static PyObject *
stack_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    Stack *stack = (Stack *)type->tp_alloc(type, 0);
    if (stack == NULL)
        return NULL;
    stack->frames = PyList_New(0);
    if (stack->frames == NULL) {
        Py_DECREF(stack);
        return NULL;
    }
    return (PyObject *)stack;
}

static int
stack_traverse(Stack *stack, visitproc visit, void *arg)
{
    Py_VISIT(stack->frames);
    return 0;
}

static int
stack_clear(Stack *stack)
{
    Py_CLEAR(stack->frames);
    return 0;
}

static void
stack_dealloc(Stack *stack)
{
    PyObject_GC_UnTrack(stack);
    stack_clear(stack);
    Py_TYPE(stack)->tp_free((PyObject *)stack);
}

static PyMemberDef stack_members[] = {
    {"frames", T_OBJECT_EX, offsetof(Stack, frames), READONLY, NULL},
    {"children_ns", T_LONGLONG, offsetof(Stack, children_ns), 0, NULL},
    {"polls", T_LONGLONG, offsetof(Stack, polls), 0, NULL},
    {NULL},
};

static PyTypeObject StackType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "perflab._accelerator.Stack",
    .tp_basicsize = sizeof(Stack),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Open spans of one thread or one task.",
    .tp_new = stack_new,
    .tp_traverse = (traverseproc)stack_traverse,
    .tp_clear = (inquiry)stack_clear,
    .tp_dealloc = (destructor)stack_dealloc,
    .tp_members = stack_members,
};

/* ---- TableFields ------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *stack; /* the thread's own Stack */
    PyObject *slots; /* site index -> SpanSlot */
    PyObject *trace; /* the timeline's list, or None */
    long long open_stacks, busy_since, attributed_ns, unbalanced, trace_dropped;
} TableFields;

static PyTypeObject TableFieldsType;

static int
table_traverse(TableFields *table, visitproc visit, void *arg)
{
    Py_VISIT(table->stack);
    Py_VISIT(table->slots);
    Py_VISIT(table->trace);
    return 0;
}

static int
table_clear(TableFields *table)
{
    Py_CLEAR(table->stack);
    Py_CLEAR(table->slots);
    Py_CLEAR(table->trace);
    return 0;
}

static void
table_dealloc(TableFields *table)
{
    PyObject_GC_UnTrack(table);
    table_clear(table);
    Py_TYPE(table)->tp_free((PyObject *)table);
}

static PyMemberDef table_members[] = {
    {"stack", T_OBJECT_EX, offsetof(TableFields, stack), 0, NULL},
    {"slots", T_OBJECT_EX, offsetof(TableFields, slots), 0, NULL},
    {"trace", T_OBJECT, offsetof(TableFields, trace), 0, NULL},
    {"open_stacks", T_LONGLONG, offsetof(TableFields, open_stacks), 0, NULL},
    {"busy_since", T_LONGLONG, offsetof(TableFields, busy_since), 0, NULL},
    {"attributed_ns", T_LONGLONG, offsetof(TableFields, attributed_ns), 0, NULL},
    {"unbalanced", T_LONGLONG, offsetof(TableFields, unbalanced), 0, NULL},
    {"trace_dropped", T_LONGLONG, offsetof(TableFields, trace_dropped), 0, NULL},
    {NULL},
};

static PyTypeObject TableFieldsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "perflab._accelerator.TableFields",
    .tp_basicsize = sizeof(TableFields),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The fields of a thread table that a span reads and writes.",
    .tp_new = PyType_GenericNew,
    .tp_traverse = (traverseproc)table_traverse,
    .tp_clear = (inquiry)table_clear,
    .tp_dealloc = (destructor)table_dealloc,
    .tp_members = table_members,
};

/* ---- what configure() hands over -------------------------------------- */

static PyObject *table_of;        /* Registry.table: the calling thread's table */
static PyObject *stack_of;        /* _tables.stack_of */
static PyObject *tables_module;   /* _tables, where stack_of binds asyncio */
static PyObject *running_loop;    /* asyncio._get_running_loop, once bound */
static Py_ssize_t trace_events;   /* _tables.TRACE_EVENTS */
static PyObject *str_asyncio, *str_get_running_loop, *trace_span_kind;

/* The calling thread's table, as a strong reference kept for the thread's
 * life: the registry keeps every table until the process exits anyway. */
static _Thread_local TableFields *thread_table;

static inline TableFields *
current_table(void)
{
    TableFields *table = thread_table;
    if (table != NULL)
        return table;
    if (table_of == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "perflab._accelerator.configure() was not called");
        return NULL;
    }
    PyObject *made = PyObject_CallNoArgs(table_of);
    if (made == NULL)
        return NULL;
    if (!PyObject_TypeCheck(made, &TableFieldsType)) {
        PyErr_SetString(PyExc_TypeError, "perflab: a thread table is not a TableFields");
        Py_DECREF(made);
        return NULL;
    }
    thread_table = (TableFields *)made;
    return thread_table;
}

static inline Stack *
checked_stack(PyObject *stack)
{
    if (stack != NULL && !PyObject_TypeCheck(stack, &StackType)) {
        PyErr_SetString(PyExc_TypeError, "perflab: a span stack is not a Stack");
        Py_DECREF(stack);
        return NULL;
    }
    return (Stack *)stack;
}

/* The stack a probe pushes onto (a new reference): the thread's until
 * asyncio is imported; then the thread's while no event loop runs on it,
 * else whatever _tables.stack_of says (the running task's). */
static inline Stack *
current_stack(TableFields *table)
{
    if (running_loop == NULL) {
        PyObject *asyncio = PyDict_GetItemWithError(PyImport_GetModuleDict(), str_asyncio);
        if (asyncio == NULL) {
            if (PyErr_Occurred())
                return NULL;
            Py_XINCREF(table->stack);
            return checked_stack(table->stack);
        }
        PyObject *stack = PyObject_CallOneArg(stack_of, (PyObject *)table);
        if (stack == NULL)
            return NULL;
        /* stack_of binds asyncio's running-loop reader once asyncio is whole. */
        PyObject *bound = PyObject_GetAttr(tables_module, str_get_running_loop);
        if (bound == NULL) {
            Py_DECREF(stack);
            return NULL;
        }
        if (bound != Py_None)
            running_loop = bound;
        else
            Py_DECREF(bound);
        return checked_stack(stack);
    }
    PyObject *loop = PyObject_CallNoArgs(running_loop);
    if (loop == NULL)
        return NULL;
    int idle = loop == Py_None;
    Py_DECREF(loop);
    if (idle) {
        Py_XINCREF(table->stack);
        return checked_stack(table->stack);
    }
    return checked_stack(PyObject_CallOneArg(stack_of, (PyObject *)table));
}

/* ---- Site -------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *name, *kind, *file, *line;
    PyObject *index; /* an int: the site's key in a table's slots */
} Site;

static int
site_traverse(Site *site, visitproc visit, void *arg)
{
    Py_VISIT(site->name);
    Py_VISIT(site->kind);
    Py_VISIT(site->file);
    Py_VISIT(site->line);
    Py_VISIT(site->index);
    return 0;
}

static int
site_clear(Site *site)
{
    Py_CLEAR(site->name);
    Py_CLEAR(site->kind);
    Py_CLEAR(site->file);
    Py_CLEAR(site->line);
    Py_CLEAR(site->index);
    return 0;
}

static void
site_dealloc(Site *site)
{
    PyObject_GC_UnTrack(site);
    site_clear(site);
    Py_TYPE(site)->tp_free((PyObject *)site);
}

static PyObject *
site_enter(Site *self, PyObject *unused)
{
    TableFields *table = current_table();
    if (table == NULL)
        return NULL;
    Stack *stack = current_stack(table);
    if (stack == NULL)
        return NULL;
    if (self->index == NULL || !PyDict_CheckExact(table->slots)) {
        PyErr_SetString(PyExc_TypeError, "perflab: a span site without an index, or a table without slots");
        goto fail;
    }
    /* A strong reference at once: allocating below may run a collection,
     * and with it finalizers that could enter spans of their own. */
    PyObject *slot = PyDict_GetItemWithError(table->slots, self->index);
    if (slot == NULL) {
        if (PyErr_Occurred())
            goto fail;
        slot = PyObject_CallNoArgs((PyObject *)&SpanSlotType);
        if (slot == NULL)
            goto fail;
        if (PyDict_SetItem(table->slots, self->index, slot) < 0) {
            Py_DECREF(slot);
            goto fail;
        }
    } else if (!PyObject_TypeCheck(slot, &SpanSlotType)) {
        PyErr_SetString(PyExc_TypeError, "perflab: a span slot is not a SpanSlot");
        goto fail;
    } else {
        Py_INCREF(slot);
    }
    PyObject *frame = PyTuple_New(4);
    PyObject *saved = frame == NULL ? NULL : PyLong_FromLongLong(stack->children_ns);
    if (saved == NULL) {
        Py_XDECREF(frame);
        Py_DECREF(slot);
        goto fail;
    }
    ((SpanSlot *)slot)->active += 1;
    Py_INCREF(self);
    PyTuple_SET_ITEM(frame, 0, (PyObject *)self);
    PyTuple_SET_ITEM(frame, 1, slot); /* the frame takes the reference */
    PyTuple_SET_ITEM(frame, 2, saved);
    stack->children_ns = 0;
    /* The clock last: what follows is one int and one append. */
    long long start = now_ns();
    PyObject *start_object = PyLong_FromLongLong(start);
    if (start_object == NULL) {
        ((SpanSlot *)slot)->active -= 1;
        Py_DECREF(frame);
        goto fail;
    }
    PyTuple_SET_ITEM(frame, 3, start_object);
    int appended = PyList_Append(stack->frames, frame);
    if (appended < 0)
        ((SpanSlot *)slot)->active -= 1;
    Py_DECREF(frame);
    if (appended < 0)
        goto fail;
    if (PyList_GET_SIZE(stack->frames) == 1 && stack->polls == 0) {
        if (table->open_stacks == 0)
            table->busy_since = start;
        table->open_stacks += 1;
    }
    Py_DECREF(stack);
    Py_INCREF(self);
    return (PyObject *)self;
fail:
    Py_DECREF(stack);
    return NULL;
}

static PyObject *
site_exit(Site *self, PyObject *const *args, Py_ssize_t nargs)
{
    long long now = now_ns();
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "__exit__ takes the exception's type, value and traceback");
        return NULL;
    }
    TableFields *table = current_table();
    if (table == NULL)
        return NULL;
    Stack *stack = current_stack(table);
    if (stack == NULL)
        return NULL;
    PyObject *frames = stack->frames;
    Py_ssize_t depth = PyList_GET_SIZE(frames);
    PyObject *frame = depth > 0 ? PyList_GET_ITEM(frames, depth - 1) : NULL;
    if (frame == NULL || !PyTuple_CheckExact(frame) || PyTuple_GET_SIZE(frame) != 4
        || PyTuple_GET_ITEM(frame, 0) != (PyObject *)self) {
        /* Left while not the innermost open span: ignored, and counted. */
        table->unbalanced += 1;
        Py_DECREF(stack);
        Py_RETURN_FALSE;
    }
    PyObject *slot_object = PyTuple_GET_ITEM(frame, 1);
    long long saved = PyLong_AsLongLong(PyTuple_GET_ITEM(frame, 2));
    long long start = PyLong_AsLongLong(PyTuple_GET_ITEM(frame, 3));
    if (((saved == -1 || start == -1) && PyErr_Occurred()) || !PyObject_TypeCheck(slot_object, &SpanSlotType)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "perflab: a span frame does not hold a SpanSlot");
        Py_DECREF(stack);
        return NULL;
    }
    SpanSlot *slot = (SpanSlot *)slot_object;
    Py_INCREF(slot);
    /* Pop: the list keeps its storage, as list.pop does before shrinking. */
    Py_SET_SIZE(frames, depth - 1);
    Py_DECREF(frame);
    long long elapsed = now - start;
    long long children = stack->children_ns;
    stack->children_ns = saved + elapsed;
    if (depth == 1 && stack->polls == 0) {
        table->open_stacks -= 1;
        if (table->open_stacks == 0)
            table->attributed_ns += now - table->busy_since;
        if ((PyObject *)stack != table->stack && table->stack != NULL
            && PyObject_TypeCheck(table->stack, &StackType))
            /* The event loop ran this task's span inside whatever span is
             * open on the thread (around asyncio.run): it is that span's child. */
            ((Stack *)table->stack)->children_ns += elapsed;
    }
    Py_DECREF(stack);
    if (elapsed > children)
        slot->self_ns += elapsed - children;
    slot->active -= 1;
    if (slot->active == 0)
        /* Only the outermost of recursive calls adds to inclusive time. */
        slot->inclusive_ns += elapsed;
    slot_record(slot, elapsed);
    if (args[0] != Py_None)
        slot->unwound += 1;
    Py_DECREF(slot);
    PyObject *trace = table->trace;
    if (trace != NULL && trace != Py_None && PyList_Check(trace)) {
        if (PyList_GET_SIZE(trace) < trace_events) {
            PyObject *event = Py_BuildValue("(OOLL)", trace_span_kind, self->name, start, now);
            if (event == NULL)
                return NULL;
            int appended = PyList_Append(trace, event);
            Py_DECREF(event);
            if (appended < 0)
                return NULL;
        } else {
            table->trace_dropped += 1;
        }
    }
    Py_RETURN_FALSE;
}

static PyObject *
site_get_index(Site *site, void *closure)
{
    if (site->index == NULL) {
        PyErr_SetString(PyExc_AttributeError, "index");
        return NULL;
    }
    Py_INCREF(site->index);
    return site->index;
}

static int
site_set_index(Site *site, PyObject *value, void *closure)
{
    if (value == NULL || !PyLong_CheckExact(value)) {
        PyErr_SetString(PyExc_TypeError, "a span site's index is an int");
        return -1;
    }
    Py_INCREF(value);
    Py_XSETREF(site->index, value);
    return 0;
}

static PyMemberDef site_members[] = {
    {"name", T_OBJECT_EX, offsetof(Site, name), 0, NULL},
    {"kind", T_OBJECT_EX, offsetof(Site, kind), 0, NULL},
    {"file", T_OBJECT_EX, offsetof(Site, file), 0, NULL},
    {"line", T_OBJECT_EX, offsetof(Site, line), 0, NULL},
    {NULL},
};

static PyGetSetDef site_getset[] = {
    {"index", (getter)site_get_index, (setter)site_set_index, "the site's place in SPAN_SITES", NULL},
    {NULL},
};

static PyMethodDef site_methods[] = {
    {"__enter__", (PyCFunction)site_enter, METH_NOARGS, "Enters the span."},
    {"__exit__", (PyCFunction)(void (*)(void))site_exit, METH_FASTCALL, "Leaves the span."},
    {NULL},
};

static PyTypeObject SiteType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "perflab._accelerator.Site",
    .tp_basicsize = sizeof(Site),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A span site entered and left in C.",
    .tp_new = PyType_GenericNew,
    .tp_traverse = (traverseproc)site_traverse,
    .tp_clear = (inquiry)site_clear,
    .tp_dealloc = (destructor)site_dealloc,
    .tp_members = site_members,
    .tp_getset = site_getset,
    .tp_methods = site_methods,
};

/* ---- the module -------------------------------------------------------- */

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *table_function, *stack_function, *tables;
    Py_ssize_t events;
    if (!PyArg_ParseTuple(args, "OOOn:configure", &table_function, &stack_function, &tables, &events))
        return NULL;
    Py_INCREF(table_function);
    Py_XSETREF(table_of, table_function);
    Py_INCREF(stack_function);
    Py_XSETREF(stack_of, stack_function);
    Py_INCREF(tables);
    Py_XSETREF(tables_module, tables);
    trace_events = events;
    Py_RETURN_NONE;
}

static PyObject *
clock_ns(PyObject *module, PyObject *unused)
{
    return PyLong_FromLongLong(now_ns());
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(table_of, stack_of, tables_module, trace_events): what the probes call back into."},
    {"clock_ns", clock_ns, METH_NOARGS, "The probes' clock, in ns: perf_counter_ns's."},
    {NULL},
};

static struct PyModuleDef accelerator_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "perflab._accelerator",
    .m_doc = "The span probe's hot path in C; the pure-Python probes do the same.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__accelerator(void)
{
    if (PyType_Ready(&SpanSlotType) < 0 || PyType_Ready(&StackType) < 0
        || PyType_Ready(&TableFieldsType) < 0 || PyType_Ready(&SiteType) < 0)
        return NULL;
    str_asyncio = PyUnicode_InternFromString("asyncio");
    str_get_running_loop = PyUnicode_InternFromString("_get_running_loop");
    trace_span_kind = PyLong_FromLong(TRACE_SPAN);
    if (str_asyncio == NULL || str_get_running_loop == NULL || trace_span_kind == NULL)
        return NULL;
    PyObject *module = PyModule_Create(&accelerator_module);
    if (module == NULL)
        return NULL;
    struct { const char *name; PyTypeObject *type; } types[] = {
        {"SpanSlot", &SpanSlotType}, {"Stack", &StackType},
        {"TableFields", &TableFieldsType}, {"Site", &SiteType},
    };
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        Py_INCREF(types[i].type);
        if (PyModule_AddObject(module, types[i].name, (PyObject *)types[i].type) < 0) {
            Py_DECREF(types[i].type);
            Py_DECREF(module);
            return NULL;
        }
    }
    if (PyModule_AddIntConstant(module, "BUCKETS", BUCKETS) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
