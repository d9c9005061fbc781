// examples/inproc-profiler/corprof_min.h - a minimal, self-contained
// declaration of the CoreCLR profiling API for the in-process profiler example.
//
// This is not the .NET SDK header and does not include any of it. It declares,
// in this project's own terms, only what a profiler example needs: the basic
// COM types, IUnknown and IClassFactory, ICorProfilerCallback through
// ICorProfilerCallback10, ICorProfilerInfo through ICorProfilerInfo12, and the
// flags, result codes and small structures those interfaces use. The facts -
// method order, parameter types, interface IDs, flag values - were taken from
// the profiling interface definition published in dotnet/runtime
// (src/coreclr/inc/corprof.idl, MIT licence); the Linux type sizes follow the
// runtime's PAL (16-bit WCHAR, 32-bit ULONG/DWORD/HRESULT/BOOL).
//
// The one thing that must be exactly right is the vtable. The runtime calls
// every method through its slot number, so each interface below lists every
// one of its methods in the definition's order, with parameters of the
// definition's sizes, including methods no example will ever call. Parameter
// names are only descriptive. Structures that travel only by pointer and that
// the examples never look inside are left incomplete.
//
// Builds as C++20 on Linux x64 (calls are plain System V calls) and on Windows
// (__stdcall, which only changes anything on 32-bit x86).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

// Calling convention of every interface method and callback type below.
#if defined(_WIN32)
#define CORPROF_MIN_CALL __stdcall
#else
#define CORPROF_MIN_CALL
#endif
// The customary COM spelling, for implementations. On Windows it comes from
// <windows.h> (defining it here first would stop <windows.h>, included
// later, from setting up its own COM macros), so only supply it elsewhere.
#if !defined(_WIN32) && !defined(STDMETHODCALLTYPE)
#define STDMETHODCALLTYPE CORPROF_MIN_CALL
#endif

namespace clretw_example::cor {

// ---------------------------------------------------------------------------
// Basic types (sizes as the runtime sees them; on Windows the native typedefs
// are `long`-based but have the same 32-bit size).
// ---------------------------------------------------------------------------

using HRESULT = std::int32_t;
using ULONG = std::uint32_t;
using DWORD = std::uint32_t;
using BOOL = std::int32_t;
using UINT = std::uint32_t;
using USHORT = std::uint16_t;
using BYTE = std::uint8_t;
using UINT8 = std::uint8_t;
using UINT32 = std::uint32_t;
using ULONG32 = std::uint32_t;
using UINT64 = std::uint64_t;
using UINT_PTR = std::uintptr_t;
using SIZE_T = std::uintptr_t;
using WCHAR = char16_t;
using HANDLE = void*;
using LPCBYTE = const BYTE*;
using PCCOR_SIGNATURE = const BYTE*;

// Metadata tokens are 32-bit.
using mdToken = std::uint32_t;
using mdTypeDef = mdToken;
using mdMethodDef = mdToken;
using mdFieldDef = mdToken;
// Element type of an array class (written through a pointer; a 32-bit enum).
using CorElementType = std::uint32_t;

// Runtime object handles: all pointer-sized.
using ProcessID = UINT_PTR;
using AssemblyID = UINT_PTR;
using AppDomainID = UINT_PTR;
using ModuleID = UINT_PTR;
using ClassID = UINT_PTR;
using ThreadID = UINT_PTR;
using ContextID = UINT_PTR;
using FunctionID = UINT_PTR;
using ObjectID = UINT_PTR;
using GCHandleID = UINT_PTR;
using ReJITID = UINT_PTR;
using COR_PRF_ELT_INFO = UINT_PTR;
using COR_PRF_FRAME_INFO = UINT_PTR;

// EventPipe handles. Note the session is 64-bit everywhere, the others are
// pointer-sized.
using EVENTPIPE_PROVIDER = UINT_PTR;
using EVENTPIPE_EVENT = UINT_PTR;
using EVENTPIPE_SESSION = UINT64;

// 16-byte interface/class identifier, laid out as in COM.
struct GUID {
    std::uint32_t Data1;
    std::uint16_t Data2;
    std::uint16_t Data3;
    std::uint8_t Data4[8];
};

constexpr bool operator==(const GUID& a, const GUID& b) noexcept {
    if (a.Data1 != b.Data1 || a.Data2 != b.Data2 || a.Data3 != b.Data3) return false;
    for (int i = 0; i < 8; ++i) {
        if (a.Data4[i] != b.Data4[i]) return false;
    }
    return true;
}

using IID = GUID;
using CLSID = GUID;
using LPCGUID = const GUID*;
// Windows headers make the REF* names macros that expand to `const IID &`
// and the like; inside this namespace those resolve to the GUID above.
#ifndef REFIID
using REFIID = const GUID&;
#endif
#ifndef REFGUID
using REFGUID = const GUID&;
#endif
#ifndef REFCLSID
using REFCLSID = const GUID&;
#endif

// ---------------------------------------------------------------------------
// Result codes. Windows headers define these as macros; when they are
// already present the macros are used as they are, so write them unqualified
// (S_OK, not cor::S_OK) in code that may be built on Windows.
// ---------------------------------------------------------------------------

#ifndef S_OK
inline constexpr HRESULT S_OK = 0;
#endif
#ifndef S_FALSE
inline constexpr HRESULT S_FALSE = 1;
#endif
#ifndef E_NOTIMPL
inline constexpr HRESULT E_NOTIMPL = static_cast<HRESULT>(0x80004001u);
#endif
#ifndef E_NOINTERFACE
inline constexpr HRESULT E_NOINTERFACE = static_cast<HRESULT>(0x80004002u);
#endif
#ifndef E_POINTER
inline constexpr HRESULT E_POINTER = static_cast<HRESULT>(0x80004003u);
#endif
#ifndef E_FAIL
inline constexpr HRESULT E_FAIL = static_cast<HRESULT>(0x80004005u);
#endif
#ifndef E_OUTOFMEMORY
inline constexpr HRESULT E_OUTOFMEMORY = static_cast<HRESULT>(0x8007000Eu);
#endif
#ifndef E_INVALIDARG
inline constexpr HRESULT E_INVALIDARG = static_cast<HRESULT>(0x80070057u);
#endif
#ifndef CLASS_E_NOAGGREGATION
inline constexpr HRESULT CLASS_E_NOAGGREGATION = static_cast<HRESULT>(0x80040110u);
#endif
#ifndef CLASS_E_CLASSNOTAVAILABLE
inline constexpr HRESULT CLASS_E_CLASSNOTAVAILABLE = static_cast<HRESULT>(0x80040111u);
#endif

constexpr bool succeeded(HRESULT hr) noexcept { return hr >= 0; }
constexpr bool failed(HRESULT hr) noexcept { return hr < 0; }

// ---------------------------------------------------------------------------
// Event masks: the low word goes to SetEventMask / the first argument of
// SetEventMask2, the high word to the second argument of SetEventMask2.
// ---------------------------------------------------------------------------

enum COR_PRF_MONITOR : std::uint32_t {
    COR_PRF_MONITOR_NONE = 0x00000000u,
    COR_PRF_MONITOR_FUNCTION_UNLOADS = 0x00000001u,
    COR_PRF_MONITOR_CLASS_LOADS = 0x00000002u,
    COR_PRF_MONITOR_MODULE_LOADS = 0x00000004u,
    COR_PRF_MONITOR_ASSEMBLY_LOADS = 0x00000008u,
    COR_PRF_MONITOR_APPDOMAIN_LOADS = 0x00000010u,
    COR_PRF_MONITOR_JIT_COMPILATION = 0x00000020u,
    COR_PRF_MONITOR_EXCEPTIONS = 0x00000040u,
    COR_PRF_MONITOR_GC = 0x00000080u,
    COR_PRF_MONITOR_OBJECT_ALLOCATED = 0x00000100u,
    COR_PRF_MONITOR_THREADS = 0x00000200u,
    COR_PRF_MONITOR_REMOTING = 0x00000400u,
    COR_PRF_MONITOR_CODE_TRANSITIONS = 0x00000800u,
    COR_PRF_MONITOR_ENTERLEAVE = 0x00001000u,
    COR_PRF_MONITOR_CCW = 0x00002000u,
    COR_PRF_MONITOR_REMOTING_COOKIE = 0x00004000u | 0x00000400u,
    COR_PRF_MONITOR_REMOTING_ASYNC = 0x00008000u | 0x00000400u,
    COR_PRF_MONITOR_SUSPENDS = 0x00010000u,
    COR_PRF_MONITOR_CACHE_SEARCHES = 0x00020000u,
    COR_PRF_ENABLE_REJIT = 0x00040000u,
    COR_PRF_ENABLE_INPROC_DEBUGGING = 0x00080000u,
    COR_PRF_ENABLE_JIT_MAPS = 0x00100000u,
    COR_PRF_DISABLE_INLINING = 0x00200000u,
    COR_PRF_DISABLE_OPTIMIZATIONS = 0x00400000u,
    COR_PRF_ENABLE_OBJECT_ALLOCATED = 0x00800000u,
    COR_PRF_MONITOR_CLR_EXCEPTIONS = 0x01000000u,
    COR_PRF_MONITOR_ALL = 0x0107FFFFu,
    COR_PRF_ENABLE_FUNCTION_ARGS = 0x02000000u,
    COR_PRF_ENABLE_FUNCTION_RETVAL = 0x04000000u,
    COR_PRF_ENABLE_FRAME_INFO = 0x08000000u,
    COR_PRF_ENABLE_STACK_SNAPSHOT = 0x10000000u,
    COR_PRF_USE_PROFILE_IMAGES = 0x20000000u,
    COR_PRF_DISABLE_TRANSPARENCY_CHECKS_UNDER_FULL_TRUST = 0x40000000u,
    COR_PRF_DISABLE_ALL_NGEN_IMAGES = 0x80000000u,
};

enum COR_PRF_HIGH_MONITOR : std::uint32_t {
    COR_PRF_HIGH_MONITOR_NONE = 0x00000000u,
    COR_PRF_HIGH_ADD_ASSEMBLY_REFERENCES = 0x00000001u,
    COR_PRF_HIGH_IN_MEMORY_SYMBOLS_UPDATED = 0x00000002u,
    COR_PRF_HIGH_MONITOR_DYNAMIC_FUNCTION_UNLOADS = 0x00000004u,
    COR_PRF_HIGH_DISABLE_TIERED_COMPILATION = 0x00000008u,
    COR_PRF_HIGH_BASIC_GC = 0x00000010u,
    COR_PRF_HIGH_MONITOR_GC_MOVED_OBJECTS = 0x00000020u,
    COR_PRF_HIGH_MONITOR_LARGEOBJECT_ALLOCATED = 0x00000040u,
    COR_PRF_HIGH_MONITOR_EVENT_PIPE = 0x00000080u,
    COR_PRF_HIGH_MONITOR_PINNEDOBJECT_ALLOCATED = 0x00000100u,
};

// ---------------------------------------------------------------------------
// Enumerations passed by value (or as arrays) in callbacks. All are C enums,
// i.e. 32 bits wide.
// ---------------------------------------------------------------------------

enum COR_PRF_JIT_CACHE : std::int32_t {
    COR_PRF_CACHED_FUNCTION_FOUND = 0,
    COR_PRF_CACHED_FUNCTION_NOT_FOUND = 1,
};

enum COR_PRF_TRANSITION_REASON : std::int32_t {
    COR_PRF_TRANSITION_CALL = 0,
    COR_PRF_TRANSITION_RETURN = 1,
};

enum COR_PRF_SUSPEND_REASON : std::int32_t {
    COR_PRF_SUSPEND_OTHER = 0,
    COR_PRF_SUSPEND_FOR_GC = 1,
    COR_PRF_SUSPEND_FOR_APPDOMAIN_SHUTDOWN = 2,
    COR_PRF_SUSPEND_FOR_CODE_PITCHING = 3,
    COR_PRF_SUSPEND_FOR_SHUTDOWN = 4,
    COR_PRF_SUSPEND_FOR_INPROC_DEBUGGER = 6,
    COR_PRF_SUSPEND_FOR_GC_PREP = 7,
    COR_PRF_SUSPEND_FOR_REJIT = 8,
    COR_PRF_SUSPEND_FOR_PROFILER = 9,
};

enum COR_PRF_GC_REASON : std::int32_t {
    COR_PRF_GC_OTHER = 0,
    COR_PRF_GC_INDUCED = 1,
};

enum COR_PRF_GC_ROOT_KIND : std::int32_t {
    COR_PRF_GC_ROOT_OTHER = 0,
    COR_PRF_GC_ROOT_STACK = 1,
    COR_PRF_GC_ROOT_FINALIZER = 2,
    COR_PRF_GC_ROOT_HANDLE = 3,
};

enum COR_PRF_GC_ROOT_FLAGS : std::int32_t {
    COR_PRF_GC_ROOT_PINNING = 0x1,
    COR_PRF_GC_ROOT_WEAKREF = 0x2,
    COR_PRF_GC_ROOT_INTERIOR = 0x4,
    COR_PRF_GC_ROOT_REFCOUNTED = 0x8,
};

// Bits of the DWORD passed to FinalizeableObjectQueued.
enum COR_PRF_FINALIZER_FLAGS : std::int32_t {
    COR_PRF_FINALIZER_CRITICAL = 0x1,
};

enum COR_PRF_GC_GENERATION : std::int32_t {
    COR_PRF_GC_GEN_0 = 0,
    COR_PRF_GC_GEN_1 = 1,
    COR_PRF_GC_GEN_2 = 2,
    COR_PRF_GC_LARGE_OBJECT_HEAP = 3,
    COR_PRF_GC_PINNED_OBJECT_HEAP = 4,
};

enum COR_PRF_CLAUSE_TYPE : std::int32_t {
    COR_PRF_CLAUSE_NONE = 0,
    COR_PRF_CLAUSE_FILTER = 1,
    COR_PRF_CLAUSE_CATCH = 2,
    COR_PRF_CLAUSE_FINALLY = 3,
};

enum COR_PRF_STATIC_TYPE : std::int32_t {
    COR_PRF_FIELD_NOT_A_STATIC = 0x0,
    COR_PRF_FIELD_APP_DOMAIN_STATIC = 0x1,
    COR_PRF_FIELD_THREAD_STATIC = 0x2,
    COR_PRF_FIELD_CONTEXT_STATIC = 0x4,
    COR_PRF_FIELD_RVA_STATIC = 0x8,
};

enum COR_PRF_RUNTIME_TYPE : std::int32_t {
    COR_PRF_DESKTOP_CLR = 0x1,
    COR_PRF_CORE_CLR = 0x2,
};

// Bits of the DWORD written by GetModuleInfo2.
enum COR_PRF_MODULE_FLAGS : std::int32_t {
    COR_PRF_MODULE_DISK = 0x01,
    COR_PRF_MODULE_NGEN = 0x02,
    COR_PRF_MODULE_DYNAMIC = 0x04,
    COR_PRF_MODULE_COLLECTIBLE = 0x08,
    COR_PRF_MODULE_RESOURCE = 0x10,
    COR_PRF_MODULE_FLAT_LAYOUT = 0x20,
    COR_PRF_MODULE_WINDOWS_RUNTIME = 0x40,
};

// Flags for the infoFlags argument of DoStackSnapshot.
enum COR_PRF_SNAPSHOT_INFO : std::int32_t {
    COR_PRF_SNAPSHOT_DEFAULT = 0x0,
    COR_PRF_SNAPSHOT_REGISTER_CONTEXT = 0x1,
    COR_PRF_SNAPSHOT_X86_OPTIMIZED = 0x2,
};

// ---------------------------------------------------------------------------
// EventPipe structures (fully laid out: the example fills them in).
// ---------------------------------------------------------------------------

// Values for COR_PRF_EVENTPIPE_PROVIDER_CONFIG::loggingLevel and for the
// level argument of EventPipeDefineEvent.
enum COR_PRF_EVENTPIPE_LEVEL : std::uint32_t {
    COR_PRF_EVENTPIPE_LOGALWAYS = 0,
    COR_PRF_EVENTPIPE_CRITICAL = 1,
    COR_PRF_EVENTPIPE_ERROR = 2,
    COR_PRF_EVENTPIPE_WARNING = 3,
    COR_PRF_EVENTPIPE_INFORMATIONAL = 4,
    COR_PRF_EVENTPIPE_VERBOSE = 5,
};

// Values for COR_PRF_EVENTPIPE_PARAM_DESC::type / elementType.
enum COR_PRF_EVENTPIPE_PARAM_TYPE : std::uint32_t {
    COR_PRF_EVENTPIPE_OBJECT = 1,
    COR_PRF_EVENTPIPE_BOOLEAN = 3,
    COR_PRF_EVENTPIPE_CHAR = 4,
    COR_PRF_EVENTPIPE_SBYTE = 5,
    COR_PRF_EVENTPIPE_BYTE = 6,
    COR_PRF_EVENTPIPE_INT16 = 7,
    COR_PRF_EVENTPIPE_UINT16 = 8,
    COR_PRF_EVENTPIPE_INT32 = 9,
    COR_PRF_EVENTPIPE_UINT32 = 10,
    COR_PRF_EVENTPIPE_INT64 = 11,
    COR_PRF_EVENTPIPE_UINT64 = 12,
    COR_PRF_EVENTPIPE_SINGLE = 13,
    COR_PRF_EVENTPIPE_DOUBLE = 14,
    COR_PRF_EVENTPIPE_DECIMAL = 15,
    COR_PRF_EVENTPIPE_DATETIME = 16,
    COR_PRF_EVENTPIPE_GUID = 17,
    COR_PRF_EVENTPIPE_STRING = 18,
    COR_PRF_EVENTPIPE_ARRAY = 19,
};

// One provider to enable in a session. filterData is an optional
// "key=value;key=value" string handed to the provider's enable callback.
struct COR_PRF_EVENTPIPE_PROVIDER_CONFIG {
    const WCHAR* providerName;
    UINT64 keywords;
    UINT32 loggingLevel;
    const WCHAR* filterData;
};

// One field of an event defined with EventPipeDefineEvent; elementType is
// only read when type is COR_PRF_EVENTPIPE_ARRAY.
struct COR_PRF_EVENTPIPE_PARAM_DESC {
    UINT32 type;
    UINT32 elementType;
    const WCHAR* name;
};

// One piece of an event payload for EventPipeWriteEvent: an address carried
// in a 64-bit field, a byte count and a field that must be zero.
struct COR_PRF_EVENT_DATA {
    UINT64 ptr;
    UINT32 size;
    UINT32 reserved;
};

// ---------------------------------------------------------------------------
// Other structures that appear in signatures. The small ones are laid out;
// the rest stay incomplete because they only ever travel by pointer here.
// ---------------------------------------------------------------------------

struct COR_IL_MAP {
    ULONG32 oldOffset;
    ULONG32 newOffset;
    BOOL fAccurate;
};

struct COR_DEBUG_IL_TO_NATIVE_MAP {
    ULONG32 ilOffset;
    ULONG32 nativeStartOffset;
    ULONG32 nativeEndOffset;
};

struct COR_FIELD_OFFSET {
    mdFieldDef ridOfField;
    ULONG ulOffset;
};

struct COR_PRF_CODE_INFO {
    UINT_PTR startAddress;
    SIZE_T size;
};

struct COR_PRF_FUNCTION_ARGUMENT_RANGE {
    UINT_PTR startAddress;
    ULONG length;
};

struct COR_PRF_GC_GENERATION_RANGE {
    COR_PRF_GC_GENERATION generation;
    ObjectID rangeStart;
    UINT_PTR rangeLength;
    UINT_PTR rangeLengthReserved;
};

struct COR_PRF_EX_CLAUSE_INFO {
    COR_PRF_CLAUSE_TYPE clauseType;
    UINT_PTR programCounter;
    UINT_PTR framePointer;
    UINT_PTR shadowStackPointer;
};

struct COR_PRF_FUNCTION_ARGUMENT_INFO;   // variable-length; not needed here

// Value passed to the "3" enter/leave/tailcall hooks: either the FunctionID or
// whatever the FunctionIDMapper returned for it.
union FunctionIDOrClientID {
    FunctionID functionID;
    UINT_PTR clientID;
};

// ---------------------------------------------------------------------------
// Function types the profiler can hand to the runtime.
// ---------------------------------------------------------------------------

typedef UINT_PTR CORPROF_MIN_CALL FunctionIDMapper(FunctionID funcId, BOOL* pbHookFunction);
typedef UINT_PTR CORPROF_MIN_CALL FunctionIDMapper2(FunctionID funcId, void* clientData,
                                                    BOOL* pbHookFunction);
typedef void CORPROF_MIN_CALL FunctionEnter(FunctionID funcId);
typedef void CORPROF_MIN_CALL FunctionLeave(FunctionID funcId);
typedef void CORPROF_MIN_CALL FunctionTailcall(FunctionID funcId);
typedef void CORPROF_MIN_CALL FunctionEnter2(FunctionID funcId, UINT_PTR clientData,
                                             COR_PRF_FRAME_INFO frame,
                                             COR_PRF_FUNCTION_ARGUMENT_INFO* argumentInfo);
typedef void CORPROF_MIN_CALL FunctionLeave2(FunctionID funcId, UINT_PTR clientData,
                                             COR_PRF_FRAME_INFO frame,
                                             COR_PRF_FUNCTION_ARGUMENT_RANGE* retvalRange);
typedef void CORPROF_MIN_CALL FunctionTailcall2(FunctionID funcId, UINT_PTR clientData,
                                                COR_PRF_FRAME_INFO frame);
typedef void CORPROF_MIN_CALL FunctionEnter3(FunctionIDOrClientID id);
typedef void CORPROF_MIN_CALL FunctionLeave3(FunctionIDOrClientID id);
typedef void CORPROF_MIN_CALL FunctionTailcall3(FunctionIDOrClientID id);
typedef void CORPROF_MIN_CALL FunctionEnter3WithInfo(FunctionIDOrClientID id, COR_PRF_ELT_INFO info);
typedef void CORPROF_MIN_CALL FunctionLeave3WithInfo(FunctionIDOrClientID id, COR_PRF_ELT_INFO info);
typedef void CORPROF_MIN_CALL FunctionTailcall3WithInfo(FunctionIDOrClientID id,
                                                        COR_PRF_ELT_INFO info);
typedef HRESULT CORPROF_MIN_CALL StackSnapshotCallback(FunctionID funcId, UINT_PTR ip,
                                                       COR_PRF_FRAME_INFO frameInfo,
                                                       ULONG32 contextSize, BYTE context[],
                                                       void* clientData);
typedef BOOL CORPROF_MIN_CALL ObjectReferenceCallback(ObjectID root, ObjectID* reference,
                                                      void* clientData);

// ---------------------------------------------------------------------------
// Interfaces that only appear as pointers in the signatures below.
// ---------------------------------------------------------------------------

struct ICorProfilerObjectEnum;
struct ICorProfilerFunctionEnum;
struct ICorProfilerModuleEnum;
struct ICorProfilerThreadEnum;
struct ICorProfilerMethodEnum;
struct ICorProfilerFunctionControl;
struct ICorProfilerAssemblyReferenceProvider;
struct IMethodMalloc;

// ---------------------------------------------------------------------------
// Interface identifiers.
// ---------------------------------------------------------------------------

inline constexpr IID IID_IUnknown{0x00000000, 0x0000, 0x0000,
                                  {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};
inline constexpr IID IID_IClassFactory{0x00000001, 0x0000, 0x0000,
                                       {0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46}};

inline constexpr IID IID_ICorProfilerCallback{0x176FBED1, 0xA55C, 0x4796,
                                              {0x98, 0xCA, 0xA9, 0xDA, 0x0E, 0xF8, 0x83, 0xE7}};
inline constexpr IID IID_ICorProfilerCallback2{0x8A8CC829, 0xCCF2, 0x49FE,
                                               {0xBB, 0xAE, 0x0F, 0x02, 0x22, 0x28, 0x07, 0x1A}};
inline constexpr IID IID_ICorProfilerCallback3{0x4FD2ED52, 0x7731, 0x4B8D,
                                               {0x94, 0x69, 0x03, 0xD2, 0xCC, 0x30, 0x86, 0xC5}};
inline constexpr IID IID_ICorProfilerCallback4{0x7B63B2E3, 0x107D, 0x4D48,
                                               {0xB2, 0xF6, 0xF6, 0x1E, 0x22, 0x94, 0x70, 0xD2}};
inline constexpr IID IID_ICorProfilerCallback5{0x8DFBA405, 0x8C9F, 0x45F8,
                                               {0xBF, 0xFA, 0x83, 0xB1, 0x4C, 0xEF, 0x78, 0xB5}};
inline constexpr IID IID_ICorProfilerCallback6{0xFC13DF4B, 0x4448, 0x4F4F,
                                               {0x95, 0x0C, 0xBA, 0x8D, 0x19, 0xD0, 0x0C, 0x36}};
inline constexpr IID IID_ICorProfilerCallback7{0xF76A2DBA, 0x1D52, 0x4539,
                                               {0x86, 0x6C, 0x2A, 0xA5, 0x18, 0xF9, 0xEF, 0xC3}};
inline constexpr IID IID_ICorProfilerCallback8{0x5BED9B15, 0xC079, 0x4D47,
                                               {0xBF, 0xE2, 0x21, 0x5A, 0x14, 0x0C, 0x07, 0xE0}};
inline constexpr IID IID_ICorProfilerCallback9{0x27583EC3, 0xC8F5, 0x482F,
                                               {0x80, 0x52, 0x19, 0x4B, 0x8C, 0xE4, 0x70, 0x5A}};
inline constexpr IID IID_ICorProfilerCallback10{0xCEC5B60E, 0xC69C, 0x495F,
                                                {0x87, 0xF6, 0x84, 0xD2, 0x8E, 0xE1, 0x6F, 0xFB}};

inline constexpr IID IID_ICorProfilerInfo{0x28B5557D, 0x3F3F, 0x48B4,
                                          {0x90, 0xB2, 0x5F, 0x9E, 0xEA, 0x2F, 0x6C, 0x48}};
inline constexpr IID IID_ICorProfilerInfo2{0xCC0935CD, 0xA518, 0x487D,
                                           {0xB0, 0xBB, 0xA9, 0x32, 0x14, 0xE6, 0x54, 0x78}};
inline constexpr IID IID_ICorProfilerInfo3{0xB555ED4F, 0x452A, 0x4E54,
                                           {0x8B, 0x39, 0xB5, 0x36, 0x0B, 0xAD, 0x32, 0xA0}};
inline constexpr IID IID_ICorProfilerInfo4{0x0D8FDCAA, 0x6257, 0x47BF,
                                           {0xB1, 0xBF, 0x94, 0xDA, 0xC8, 0x84, 0x66, 0xEE}};
inline constexpr IID IID_ICorProfilerInfo5{0x07602928, 0xCE38, 0x4B83,
                                           {0x81, 0xE7, 0x74, 0xAD, 0xAF, 0x78, 0x12, 0x14}};
inline constexpr IID IID_ICorProfilerInfo6{0xF30A070D, 0xBFFB, 0x46A7,
                                           {0xB1, 0xD8, 0x87, 0x81, 0xEF, 0x7B, 0x69, 0x8A}};
inline constexpr IID IID_ICorProfilerInfo7{0x9AEECC0D, 0x63E0, 0x4187,
                                           {0x8C, 0x00, 0xE3, 0x12, 0xF5, 0x03, 0xF6, 0x63}};
inline constexpr IID IID_ICorProfilerInfo8{0xC5AC80A6, 0x782E, 0x4716,
                                           {0x80, 0x44, 0x39, 0x59, 0x8C, 0x60, 0xCF, 0xBF}};
inline constexpr IID IID_ICorProfilerInfo9{0x008170DB, 0xF8CC, 0x4796,
                                           {0x9A, 0x51, 0xDC, 0x8A, 0xA0, 0xB4, 0x70, 0x12}};
inline constexpr IID IID_ICorProfilerInfo10{0x2F1B5152, 0xC869, 0x40C9,
                                            {0xAA, 0x5F, 0x3A, 0xBE, 0x02, 0x6B, 0xD7, 0x20}};
inline constexpr IID IID_ICorProfilerInfo11{0x06398876, 0x8987, 0x4154,
                                            {0xB6, 0x21, 0x40, 0xA0, 0x0D, 0x6E, 0x4D, 0x04}};
inline constexpr IID IID_ICorProfilerInfo12{0x27B24CCD, 0x1CB1, 0x47C5,
                                            {0x96, 0xEE, 0x98, 0x19, 0x0D, 0xC3, 0x09, 0x59}};

// ---------------------------------------------------------------------------
// COM basics.
// ---------------------------------------------------------------------------

struct IUnknown {
    virtual HRESULT CORPROF_MIN_CALL QueryInterface(REFIID riid, void** ppvObject) = 0;
    virtual ULONG CORPROF_MIN_CALL AddRef() = 0;
    virtual ULONG CORPROF_MIN_CALL Release() = 0;

protected:
    ~IUnknown() = default;   // lifetime goes through Release, never delete
};

struct IClassFactory : IUnknown {
    virtual HRESULT CORPROF_MIN_CALL CreateInstance(IUnknown* pUnkOuter, REFIID riid,
                                                    void** ppvObject) = 0;
    virtual HRESULT CORPROF_MIN_CALL LockServer(BOOL fLock) = 0;
};

// ---------------------------------------------------------------------------
// Callbacks: implemented by the profiler, called by the runtime.
// ---------------------------------------------------------------------------

struct ICorProfilerCallback : IUnknown {
    // Start-up and shutdown.
    virtual HRESULT CORPROF_MIN_CALL Initialize(IUnknown* pICorProfilerInfoUnk) = 0;
    virtual HRESULT CORPROF_MIN_CALL Shutdown() = 0;
    // Application domains.
    virtual HRESULT CORPROF_MIN_CALL AppDomainCreationStarted(AppDomainID appDomainId) = 0;
    virtual HRESULT CORPROF_MIN_CALL AppDomainCreationFinished(AppDomainID appDomainId,
                                                               HRESULT hrStatus) = 0;
    virtual HRESULT CORPROF_MIN_CALL AppDomainShutdownStarted(AppDomainID appDomainId) = 0;
    virtual HRESULT CORPROF_MIN_CALL AppDomainShutdownFinished(AppDomainID appDomainId,
                                                               HRESULT hrStatus) = 0;
    // Assemblies.
    virtual HRESULT CORPROF_MIN_CALL AssemblyLoadStarted(AssemblyID assemblyId) = 0;
    virtual HRESULT CORPROF_MIN_CALL AssemblyLoadFinished(AssemblyID assemblyId,
                                                          HRESULT hrStatus) = 0;
    virtual HRESULT CORPROF_MIN_CALL AssemblyUnloadStarted(AssemblyID assemblyId) = 0;
    virtual HRESULT CORPROF_MIN_CALL AssemblyUnloadFinished(AssemblyID assemblyId,
                                                            HRESULT hrStatus) = 0;
    // Modules.
    virtual HRESULT CORPROF_MIN_CALL ModuleLoadStarted(ModuleID moduleId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ModuleLoadFinished(ModuleID moduleId, HRESULT hrStatus) = 0;
    virtual HRESULT CORPROF_MIN_CALL ModuleUnloadStarted(ModuleID moduleId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ModuleUnloadFinished(ModuleID moduleId, HRESULT hrStatus) = 0;
    virtual HRESULT CORPROF_MIN_CALL ModuleAttachedToAssembly(ModuleID moduleId,
                                                              AssemblyID assemblyId) = 0;
    // Classes.
    virtual HRESULT CORPROF_MIN_CALL ClassLoadStarted(ClassID classId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ClassLoadFinished(ClassID classId, HRESULT hrStatus) = 0;
    virtual HRESULT CORPROF_MIN_CALL ClassUnloadStarted(ClassID classId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ClassUnloadFinished(ClassID classId, HRESULT hrStatus) = 0;
    // JIT.
    virtual HRESULT CORPROF_MIN_CALL FunctionUnloadStarted(FunctionID functionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL JITCompilationStarted(FunctionID functionId,
                                                           BOOL fIsSafeToBlock) = 0;
    virtual HRESULT CORPROF_MIN_CALL JITCompilationFinished(FunctionID functionId,
                                                            HRESULT hrStatus,
                                                            BOOL fIsSafeToBlock) = 0;
    virtual HRESULT CORPROF_MIN_CALL JITCachedFunctionSearchStarted(FunctionID functionId,
                                                                    BOOL* pbUseCachedFunction) = 0;
    virtual HRESULT CORPROF_MIN_CALL JITCachedFunctionSearchFinished(FunctionID functionId,
                                                                     COR_PRF_JIT_CACHE result) = 0;
    virtual HRESULT CORPROF_MIN_CALL JITFunctionPitched(FunctionID functionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL JITInlining(FunctionID callerId, FunctionID calleeId,
                                                 BOOL* pfShouldInline) = 0;
    // Threads.
    virtual HRESULT CORPROF_MIN_CALL ThreadCreated(ThreadID threadId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ThreadDestroyed(ThreadID threadId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ThreadAssignedToOSThread(ThreadID managedThreadId,
                                                              DWORD osThreadId) = 0;
    // Remoting (never raised by CoreCLR; the slots must still exist).
    virtual HRESULT CORPROF_MIN_CALL RemotingClientInvocationStarted() = 0;
    virtual HRESULT CORPROF_MIN_CALL RemotingClientSendingMessage(GUID* pCookie, BOOL fIsAsync) = 0;
    virtual HRESULT CORPROF_MIN_CALL RemotingClientReceivingReply(GUID* pCookie, BOOL fIsAsync) = 0;
    virtual HRESULT CORPROF_MIN_CALL RemotingClientInvocationFinished() = 0;
    virtual HRESULT CORPROF_MIN_CALL RemotingServerReceivingMessage(GUID* pCookie,
                                                                    BOOL fIsAsync) = 0;
    virtual HRESULT CORPROF_MIN_CALL RemotingServerInvocationStarted() = 0;
    virtual HRESULT CORPROF_MIN_CALL RemotingServerInvocationReturned() = 0;
    virtual HRESULT CORPROF_MIN_CALL RemotingServerSendingReply(GUID* pCookie, BOOL fIsAsync) = 0;
    // Managed/unmanaged transitions.
    virtual HRESULT CORPROF_MIN_CALL UnmanagedToManagedTransition(
        FunctionID functionId, COR_PRF_TRANSITION_REASON reason) = 0;
    virtual HRESULT CORPROF_MIN_CALL ManagedToUnmanagedTransition(
        FunctionID functionId, COR_PRF_TRANSITION_REASON reason) = 0;
    // Runtime suspension.
    virtual HRESULT CORPROF_MIN_CALL RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON suspendReason) = 0;
    virtual HRESULT CORPROF_MIN_CALL RuntimeSuspendFinished() = 0;
    virtual HRESULT CORPROF_MIN_CALL RuntimeSuspendAborted() = 0;
    virtual HRESULT CORPROF_MIN_CALL RuntimeResumeStarted() = 0;
    virtual HRESULT CORPROF_MIN_CALL RuntimeResumeFinished() = 0;
    virtual HRESULT CORPROF_MIN_CALL RuntimeThreadSuspended(ThreadID threadId) = 0;
    virtual HRESULT CORPROF_MIN_CALL RuntimeThreadResumed(ThreadID threadId) = 0;
    // Garbage collection (the arrays are parallel, each cCount long).
    virtual HRESULT CORPROF_MIN_CALL MovedReferences(ULONG cMovedObjectIDRanges,
                                                     ObjectID oldObjectIDRangeStart[],
                                                     ObjectID newObjectIDRangeStart[],
                                                     ULONG cObjectIDRangeLength[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL ObjectAllocated(ObjectID objectId, ClassID classId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ObjectsAllocatedByClass(ULONG cClassCount, ClassID classIds[],
                                                             ULONG cObjects[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL ObjectReferences(ObjectID objectId, ClassID classId,
                                                      ULONG cObjectRefs,
                                                      ObjectID objectRefIds[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL RootReferences(ULONG cRootRefs, ObjectID rootRefIds[]) = 0;
    // Exceptions.
    virtual HRESULT CORPROF_MIN_CALL ExceptionThrown(ObjectID thrownObjectId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionSearchFunctionEnter(FunctionID functionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionSearchFunctionLeave() = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionSearchFilterEnter(FunctionID functionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionSearchFilterLeave() = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionSearchCatcherFound(FunctionID functionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionOSHandlerEnter(UINT_PTR reserved) = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionOSHandlerLeave(UINT_PTR reserved) = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionUnwindFunctionEnter(FunctionID functionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionUnwindFunctionLeave() = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionUnwindFinallyEnter(FunctionID functionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionUnwindFinallyLeave() = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionCatcherEnter(FunctionID functionId,
                                                           ObjectID objectId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionCatcherLeave() = 0;
    // COM interop vtables.
    virtual HRESULT CORPROF_MIN_CALL COMClassicVTableCreated(ClassID wrappedClassId,
                                                             REFGUID implementedIID,
                                                             void* pVTable, ULONG cSlots) = 0;
    virtual HRESULT CORPROF_MIN_CALL COMClassicVTableDestroyed(ClassID wrappedClassId,
                                                               REFGUID implementedIID,
                                                               void* pVTable) = 0;
    // No longer raised.
    virtual HRESULT CORPROF_MIN_CALL ExceptionCLRCatcherFound() = 0;
    virtual HRESULT CORPROF_MIN_CALL ExceptionCLRCatcherExecute() = 0;
};

struct ICorProfilerCallback2 : ICorProfilerCallback {
    // name is cchName characters, not NUL-terminated.
    virtual HRESULT CORPROF_MIN_CALL ThreadNameChanged(ThreadID threadId, ULONG cchName,
                                                       WCHAR name[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GarbageCollectionStarted(std::int32_t cGenerations,
                                                              BOOL generationCollected[],
                                                              COR_PRF_GC_REASON reason) = 0;
    virtual HRESULT CORPROF_MIN_CALL SurvivingReferences(ULONG cSurvivingObjectIDRanges,
                                                         ObjectID objectIDRangeStart[],
                                                         ULONG cObjectIDRangeLength[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GarbageCollectionFinished() = 0;
    // finalizerFlags holds COR_PRF_FINALIZER_FLAGS bits.
    virtual HRESULT CORPROF_MIN_CALL FinalizeableObjectQueued(DWORD finalizerFlags,
                                                              ObjectID objectID) = 0;
    virtual HRESULT CORPROF_MIN_CALL RootReferences2(ULONG cRootRefs, ObjectID rootRefIds[],
                                                     COR_PRF_GC_ROOT_KIND rootKinds[],
                                                     COR_PRF_GC_ROOT_FLAGS rootFlags[],
                                                     UINT_PTR rootIds[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL HandleCreated(GCHandleID handleId, ObjectID initialObjectId) = 0;
    virtual HRESULT CORPROF_MIN_CALL HandleDestroyed(GCHandleID handleId) = 0;
};

struct ICorProfilerCallback3 : ICorProfilerCallback2 {
    virtual HRESULT CORPROF_MIN_CALL InitializeForAttach(IUnknown* pCorProfilerInfoUnk,
                                                         void* pvClientData,
                                                         UINT cbClientData) = 0;
    virtual HRESULT CORPROF_MIN_CALL ProfilerAttachComplete() = 0;
    virtual HRESULT CORPROF_MIN_CALL ProfilerDetachSucceeded() = 0;
};

struct ICorProfilerCallback4 : ICorProfilerCallback3 {
    virtual HRESULT CORPROF_MIN_CALL ReJITCompilationStarted(FunctionID functionId, ReJITID rejitId,
                                                             BOOL fIsSafeToBlock) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetReJITParameters(
        ModuleID moduleId, mdMethodDef methodId, ICorProfilerFunctionControl* pFunctionControl) = 0;
    virtual HRESULT CORPROF_MIN_CALL ReJITCompilationFinished(FunctionID functionId,
                                                              ReJITID rejitId, HRESULT hrStatus,
                                                              BOOL fIsSafeToBlock) = 0;
    virtual HRESULT CORPROF_MIN_CALL ReJITError(ModuleID moduleId, mdMethodDef methodId,
                                                FunctionID functionId, HRESULT hrStatus) = 0;
    virtual HRESULT CORPROF_MIN_CALL MovedReferences2(ULONG cMovedObjectIDRanges,
                                                      ObjectID oldObjectIDRangeStart[],
                                                      ObjectID newObjectIDRangeStart[],
                                                      SIZE_T cObjectIDRangeLength[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL SurvivingReferences2(ULONG cSurvivingObjectIDRanges,
                                                          ObjectID objectIDRangeStart[],
                                                          SIZE_T cObjectIDRangeLength[]) = 0;
};

struct ICorProfilerCallback5 : ICorProfilerCallback4 {
    virtual HRESULT CORPROF_MIN_CALL ConditionalWeakTableElementReferences(
        ULONG cRootRefs, ObjectID keyRefIds[], ObjectID valueRefIds[], GCHandleID rootIds[]) = 0;
};

struct ICorProfilerCallback6 : ICorProfilerCallback5 {
    virtual HRESULT CORPROF_MIN_CALL GetAssemblyReferences(
        const WCHAR* wszAssemblyPath, ICorProfilerAssemblyReferenceProvider* pAsmRefProvider) = 0;
};

struct ICorProfilerCallback7 : ICorProfilerCallback6 {
    virtual HRESULT CORPROF_MIN_CALL ModuleInMemorySymbolsUpdated(ModuleID moduleId) = 0;
};

struct ICorProfilerCallback8 : ICorProfilerCallback7 {
    virtual HRESULT CORPROF_MIN_CALL DynamicMethodJITCompilationStarted(FunctionID functionId,
                                                                        BOOL fIsSafeToBlock,
                                                                        LPCBYTE pILHeader,
                                                                        ULONG cbILHeader) = 0;
    virtual HRESULT CORPROF_MIN_CALL DynamicMethodJITCompilationFinished(FunctionID functionId,
                                                                         HRESULT hrStatus,
                                                                         BOOL fIsSafeToBlock) = 0;
};

struct ICorProfilerCallback9 : ICorProfilerCallback8 {
    virtual HRESULT CORPROF_MIN_CALL DynamicMethodUnloaded(FunctionID functionId) = 0;
};

struct ICorProfilerCallback10 : ICorProfilerCallback9 {
    // Every pointer is valid only for the duration of the call.
    virtual HRESULT CORPROF_MIN_CALL EventPipeEventDelivered(
        EVENTPIPE_PROVIDER provider, DWORD eventId, DWORD eventVersion, ULONG cbMetadataBlob,
        LPCBYTE metadataBlob, ULONG cbEventData, LPCBYTE eventData, LPCGUID pActivityId,
        LPCGUID pRelatedActivityId, ThreadID eventThread, ULONG numStackFrames,
        UINT_PTR stackFrames[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL EventPipeProviderCreated(EVENTPIPE_PROVIDER provider) = 0;
};

// ---------------------------------------------------------------------------
// Info: implemented by the runtime, called by the profiler. Obtain it by
// QueryInterface on the IUnknown passed to Initialize.
// ---------------------------------------------------------------------------

struct ICorProfilerInfo : IUnknown {
    virtual HRESULT CORPROF_MIN_CALL GetClassFromObject(ObjectID objectId, ClassID* pClassId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetClassFromToken(ModuleID moduleId, mdTypeDef typeDef,
                                                       ClassID* pClassId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetCodeInfo(FunctionID functionId, LPCBYTE* pStart,
                                                 ULONG* pcSize) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetEventMask(DWORD* pdwEvents) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionFromIP(LPCBYTE ip, FunctionID* pFunctionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionFromToken(ModuleID moduleId, mdToken token,
                                                          FunctionID* pFunctionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetHandleFromThread(ThreadID threadId, HANDLE* phThread) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetObjectSize(ObjectID objectId, ULONG* pcSize) = 0;
    virtual HRESULT CORPROF_MIN_CALL IsArrayClass(ClassID classId, CorElementType* pBaseElemType,
                                                  ClassID* pBaseClassId, ULONG* pcRank) = 0;
    // The OS thread id of a managed thread.
    virtual HRESULT CORPROF_MIN_CALL GetThreadInfo(ThreadID threadId, DWORD* pdwWin32ThreadId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetCurrentThreadID(ThreadID* pThreadId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetClassIDInfo(ClassID classId, ModuleID* pModuleId,
                                                    mdTypeDef* pTypeDefToken) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionInfo(FunctionID functionId, ClassID* pClassId,
                                                     ModuleID* pModuleId, mdToken* pToken) = 0;
    // COR_PRF_MONITOR bits.
    virtual HRESULT CORPROF_MIN_CALL SetEventMask(DWORD dwEvents) = 0;
    virtual HRESULT CORPROF_MIN_CALL SetEnterLeaveFunctionHooks(FunctionEnter* pFuncEnter,
                                                                FunctionLeave* pFuncLeave,
                                                                FunctionTailcall* pFuncTailcall) = 0;
    virtual HRESULT CORPROF_MIN_CALL SetFunctionIDMapper(FunctionIDMapper* pFunc) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetTokenAndMetaDataFromFunction(FunctionID functionId,
                                                                     REFIID riid,
                                                                     IUnknown** ppImport,
                                                                     mdToken* pToken) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetModuleInfo(ModuleID moduleId, LPCBYTE* ppBaseLoadAddress,
                                                   ULONG cchName, ULONG* pcchName,
                                                   WCHAR szName[], AssemblyID* pAssemblyId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetModuleMetaData(ModuleID moduleId, DWORD dwOpenFlags,
                                                       REFIID riid, IUnknown** ppOut) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetILFunctionBody(ModuleID moduleId, mdMethodDef methodId,
                                                       LPCBYTE* ppMethodHeader,
                                                       ULONG* pcbMethodSize) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetILFunctionBodyAllocator(ModuleID moduleId,
                                                                IMethodMalloc** ppMalloc) = 0;
    virtual HRESULT CORPROF_MIN_CALL SetILFunctionBody(ModuleID moduleId, mdMethodDef methodId,
                                                       LPCBYTE pbNewILMethodHeader) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetAppDomainInfo(AppDomainID appDomainId, ULONG cchName,
                                                      ULONG* pcchName, WCHAR szName[],
                                                      ProcessID* pProcessId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetAssemblyInfo(AssemblyID assemblyId, ULONG cchName,
                                                     ULONG* pcchName, WCHAR szName[],
                                                     AppDomainID* pAppDomainId,
                                                     ModuleID* pModuleId) = 0;
    virtual HRESULT CORPROF_MIN_CALL SetFunctionReJIT(FunctionID functionId) = 0;
    virtual HRESULT CORPROF_MIN_CALL ForceGC() = 0;
    virtual HRESULT CORPROF_MIN_CALL SetILInstrumentedCodeMap(FunctionID functionId,
                                                              BOOL fStartJit, ULONG cILMapEntries,
                                                              COR_IL_MAP rgILMapEntries[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetInprocInspectionInterface(IUnknown** ppicd) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetInprocInspectionIThisThread(IUnknown** ppicd) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetThreadContext(ThreadID threadId, ContextID* pContextId) = 0;
    virtual HRESULT CORPROF_MIN_CALL BeginInprocDebugging(BOOL fThisThreadOnly,
                                                          DWORD* pdwProfilerContext) = 0;
    virtual HRESULT CORPROF_MIN_CALL EndInprocDebugging(DWORD dwProfilerContext) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetILToNativeMapping(FunctionID functionId, ULONG32 cMap,
                                                          ULONG32* pcMap,
                                                          COR_DEBUG_IL_TO_NATIVE_MAP map[]) = 0;
};

struct ICorProfilerInfo2 : ICorProfilerInfo {
    virtual HRESULT CORPROF_MIN_CALL DoStackSnapshot(ThreadID thread,
                                                     StackSnapshotCallback* callback,
                                                     ULONG32 infoFlags, void* clientData,
                                                     BYTE context[], ULONG32 contextSize) = 0;
    virtual HRESULT CORPROF_MIN_CALL SetEnterLeaveFunctionHooks2(FunctionEnter2* pFuncEnter,
                                                                 FunctionLeave2* pFuncLeave,
                                                                 FunctionTailcall2* pFuncTailcall) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionInfo2(FunctionID funcId,
                                                      COR_PRF_FRAME_INFO frameInfo,
                                                      ClassID* pClassId, ModuleID* pModuleId,
                                                      mdToken* pToken, ULONG32 cTypeArgs,
                                                      ULONG32* pcTypeArgs, ClassID typeArgs[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetStringLayout(ULONG* pBufferLengthOffset,
                                                     ULONG* pStringLengthOffset,
                                                     ULONG* pBufferOffset) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetClassLayout(ClassID classID,
                                                    COR_FIELD_OFFSET rFieldOffset[],
                                                    ULONG cFieldOffset, ULONG* pcFieldOffset,
                                                    ULONG* pulClassSize) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetClassIDInfo2(ClassID classId, ModuleID* pModuleId,
                                                     mdTypeDef* pTypeDefToken,
                                                     ClassID* pParentClassId,
                                                     ULONG32 cNumTypeArgs,
                                                     ULONG32* pcNumTypeArgs,
                                                     ClassID typeArgs[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetCodeInfo2(FunctionID functionID, ULONG32 cCodeInfos,
                                                  ULONG32* pcCodeInfos,
                                                  COR_PRF_CODE_INFO codeInfos[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetClassFromTokenAndTypeArgs(ModuleID moduleID,
                                                                  mdTypeDef typeDef,
                                                                  ULONG32 cTypeArgs,
                                                                  ClassID typeArgs[],
                                                                  ClassID* pClassID) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionFromTokenAndTypeArgs(ModuleID moduleID,
                                                                     mdMethodDef funcDef,
                                                                     ClassID classId,
                                                                     ULONG32 cTypeArgs,
                                                                     ClassID typeArgs[],
                                                                     FunctionID* pFunctionID) = 0;
    virtual HRESULT CORPROF_MIN_CALL EnumModuleFrozenObjects(ModuleID moduleID,
                                                             ICorProfilerObjectEnum** ppEnum) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetArrayObjectInfo(ObjectID objectId, ULONG32 cDimensions,
                                                        ULONG32 pDimensionSizes[],
                                                        std::int32_t pDimensionLowerBounds[],
                                                        BYTE** ppData) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetBoxClassLayout(ClassID classId, ULONG32* pBufferOffset) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetThreadAppDomain(ThreadID threadId,
                                                        AppDomainID* pAppDomainId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetRVAStaticAddress(ClassID classId, mdFieldDef fieldToken,
                                                         void** ppAddress) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetAppDomainStaticAddress(ClassID classId,
                                                               mdFieldDef fieldToken,
                                                               AppDomainID appDomainId,
                                                               void** ppAddress) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetThreadStaticAddress(ClassID classId, mdFieldDef fieldToken,
                                                            ThreadID threadId,
                                                            void** ppAddress) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetContextStaticAddress(ClassID classId,
                                                             mdFieldDef fieldToken,
                                                             ContextID contextId,
                                                             void** ppAddress) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetStaticFieldInfo(ClassID classId, mdFieldDef fieldToken,
                                                        COR_PRF_STATIC_TYPE* pFieldInfo) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetGenerationBounds(ULONG cObjectRanges, ULONG* pcObjectRanges,
                                                         COR_PRF_GC_GENERATION_RANGE ranges[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetObjectGeneration(ObjectID objectId,
                                                         COR_PRF_GC_GENERATION_RANGE* range) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetNotifiedExceptionClauseInfo(COR_PRF_EX_CLAUSE_INFO* pinfo) = 0;
};

struct ICorProfilerInfo3 : ICorProfilerInfo2 {
    virtual HRESULT CORPROF_MIN_CALL EnumJITedFunctions(ICorProfilerFunctionEnum** ppEnum) = 0;
    virtual HRESULT CORPROF_MIN_CALL RequestProfilerDetach(DWORD dwExpectedCompletionMilliseconds) = 0;
    virtual HRESULT CORPROF_MIN_CALL SetFunctionIDMapper2(FunctionIDMapper2* pFunc,
                                                          void* clientData) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetStringLayout2(ULONG* pStringLengthOffset,
                                                      ULONG* pBufferOffset) = 0;
    virtual HRESULT CORPROF_MIN_CALL SetEnterLeaveFunctionHooks3(FunctionEnter3* pFuncEnter3,
                                                                 FunctionLeave3* pFuncLeave3,
                                                                 FunctionTailcall3* pFuncTailcall3) = 0;
    virtual HRESULT CORPROF_MIN_CALL SetEnterLeaveFunctionHooks3WithInfo(
        FunctionEnter3WithInfo* pFuncEnter3WithInfo, FunctionLeave3WithInfo* pFuncLeave3WithInfo,
        FunctionTailcall3WithInfo* pFuncTailcall3WithInfo) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionEnter3Info(
        FunctionID functionId, COR_PRF_ELT_INFO eltInfo, COR_PRF_FRAME_INFO* pFrameInfo,
        ULONG* pcbArgumentInfo, COR_PRF_FUNCTION_ARGUMENT_INFO* pArgumentInfo) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionLeave3Info(
        FunctionID functionId, COR_PRF_ELT_INFO eltInfo, COR_PRF_FRAME_INFO* pFrameInfo,
        COR_PRF_FUNCTION_ARGUMENT_RANGE* pRetvalRange) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionTailcall3Info(FunctionID functionId,
                                                              COR_PRF_ELT_INFO eltInfo,
                                                              COR_PRF_FRAME_INFO* pFrameInfo) = 0;
    virtual HRESULT CORPROF_MIN_CALL EnumModules(ICorProfilerModuleEnum** ppEnum) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetRuntimeInformation(
        USHORT* pClrInstanceId, COR_PRF_RUNTIME_TYPE* pRuntimeType, USHORT* pMajorVersion,
        USHORT* pMinorVersion, USHORT* pBuildNumber, USHORT* pQFEVersion,
        ULONG cchVersionString, ULONG* pcchVersionString, WCHAR szVersionString[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetThreadStaticAddress2(ClassID classId,
                                                             mdFieldDef fieldToken,
                                                             AppDomainID appDomainId,
                                                             ThreadID threadId,
                                                             void** ppAddress) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetAppDomainsContainingModule(ModuleID moduleId,
                                                                   ULONG32 cAppDomainIds,
                                                                   ULONG32* pcAppDomainIds,
                                                                   AppDomainID appDomainIds[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetModuleInfo2(ModuleID moduleId, LPCBYTE* ppBaseLoadAddress,
                                                    ULONG cchName, ULONG* pcchName,
                                                    WCHAR szName[], AssemblyID* pAssemblyId,
                                                    DWORD* pdwModuleFlags) = 0;
};

struct ICorProfilerInfo4 : ICorProfilerInfo3 {
    virtual HRESULT CORPROF_MIN_CALL EnumThreads(ICorProfilerThreadEnum** ppEnum) = 0;
    virtual HRESULT CORPROF_MIN_CALL InitializeCurrentThread() = 0;
    virtual HRESULT CORPROF_MIN_CALL RequestReJIT(ULONG cFunctions, ModuleID moduleIds[],
                                                  mdMethodDef methodIds[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL RequestRevert(ULONG cFunctions, ModuleID moduleIds[],
                                                   mdMethodDef methodIds[], HRESULT status[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetCodeInfo3(FunctionID functionID, ReJITID reJitId,
                                                  ULONG32 cCodeInfos, ULONG32* pcCodeInfos,
                                                  COR_PRF_CODE_INFO codeInfos[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionFromIP2(LPCBYTE ip, FunctionID* pFunctionId,
                                                        ReJITID* pReJitId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetReJITIDs(FunctionID functionId, ULONG cReJitIds,
                                                 ULONG* pcReJitIds, ReJITID reJitIds[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetILToNativeMapping2(FunctionID functionId, ReJITID reJitId,
                                                           ULONG32 cMap, ULONG32* pcMap,
                                                           COR_DEBUG_IL_TO_NATIVE_MAP map[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL EnumJITedFunctions2(ICorProfilerFunctionEnum** ppEnum) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetObjectSize2(ObjectID objectId, SIZE_T* pcSize) = 0;
};

struct ICorProfilerInfo5 : ICorProfilerInfo4 {
    virtual HRESULT CORPROF_MIN_CALL GetEventMask2(DWORD* pdwEventsLow, DWORD* pdwEventsHigh) = 0;
    // dwEventsLow: COR_PRF_MONITOR bits; dwEventsHigh: COR_PRF_HIGH_MONITOR bits.
    virtual HRESULT CORPROF_MIN_CALL SetEventMask2(DWORD dwEventsLow, DWORD dwEventsHigh) = 0;
};

struct ICorProfilerInfo6 : ICorProfilerInfo5 {
    virtual HRESULT CORPROF_MIN_CALL EnumNgenModuleMethodsInliningThisMethod(
        ModuleID inlinersModuleId, ModuleID inlineeModuleId, mdMethodDef inlineeMethodId,
        BOOL* incompleteData, ICorProfilerMethodEnum** ppEnum) = 0;
};

struct ICorProfilerInfo7 : ICorProfilerInfo6 {
    virtual HRESULT CORPROF_MIN_CALL ApplyMetaData(ModuleID moduleId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetInMemorySymbolsLength(ModuleID moduleId,
                                                              DWORD* pCountSymbolBytes) = 0;
    virtual HRESULT CORPROF_MIN_CALL ReadInMemorySymbols(ModuleID moduleId,
                                                         DWORD symbolsReadOffset,
                                                         BYTE* pSymbolBytes,
                                                         DWORD countSymbolBytes,
                                                         DWORD* pCountSymbolBytesRead) = 0;
};

struct ICorProfilerInfo8 : ICorProfilerInfo7 {
    virtual HRESULT CORPROF_MIN_CALL IsFunctionDynamic(FunctionID functionId, BOOL* isDynamic) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetFunctionFromIP3(LPCBYTE ip, FunctionID* functionId,
                                                        ReJITID* pReJitId) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetDynamicFunctionInfo(FunctionID functionId,
                                                            ModuleID* moduleId,
                                                            PCCOR_SIGNATURE* ppvSig,
                                                            ULONG* pbSig, ULONG cchName,
                                                            ULONG* pcchName,
                                                            WCHAR wszName[]) = 0;
};

struct ICorProfilerInfo9 : ICorProfilerInfo8 {
    virtual HRESULT CORPROF_MIN_CALL GetNativeCodeStartAddresses(FunctionID functionID,
                                                                 ReJITID reJitId,
                                                                 ULONG32 cCodeStartAddresses,
                                                                 ULONG32* pcCodeStartAddresses,
                                                                 UINT_PTR codeStartAddresses[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetILToNativeMapping3(UINT_PTR pNativeCodeStartAddress,
                                                           ULONG32 cMap, ULONG32* pcMap,
                                                           COR_DEBUG_IL_TO_NATIVE_MAP map[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetCodeInfo4(UINT_PTR pNativeCodeStartAddress,
                                                  ULONG32 cCodeInfos, ULONG32* pcCodeInfos,
                                                  COR_PRF_CODE_INFO codeInfos[]) = 0;
};

struct ICorProfilerInfo10 : ICorProfilerInfo9 {
    virtual HRESULT CORPROF_MIN_CALL EnumerateObjectReferences(ObjectID objectId,
                                                               ObjectReferenceCallback* callback,
                                                               void* clientData) = 0;
    virtual HRESULT CORPROF_MIN_CALL IsFrozenObject(ObjectID objectId, BOOL* pbFrozen) = 0;
    virtual HRESULT CORPROF_MIN_CALL GetLOHObjectSizeThreshold(DWORD* pThreshold) = 0;
    virtual HRESULT CORPROF_MIN_CALL RequestReJITWithInliners(DWORD dwRejitFlags, ULONG cFunctions,
                                                              ModuleID moduleIds[],
                                                              mdMethodDef methodIds[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL SuspendRuntime() = 0;
    virtual HRESULT CORPROF_MIN_CALL ResumeRuntime() = 0;
};

struct ICorProfilerInfo11 : ICorProfilerInfo10 {
    // Note: <windows.h> turns these two names into ...W macros; the slots are
    // unaffected.
    virtual HRESULT CORPROF_MIN_CALL GetEnvironmentVariable(const WCHAR* szName, ULONG cchValue,
                                                            ULONG* pcchValue,
                                                            WCHAR szValue[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL SetEnvironmentVariable(const WCHAR* szName,
                                                            const WCHAR* szValue) = 0;
};

struct ICorProfilerInfo12 : ICorProfilerInfo11 {
    // Starts a session delivering the configured providers' events to
    // ICorProfilerCallback10::EventPipeEventDelivered.
    virtual HRESULT CORPROF_MIN_CALL EventPipeStartSession(
        UINT32 cProviderConfigs, COR_PRF_EVENTPIPE_PROVIDER_CONFIG pProviderConfigs[],
        BOOL requestRundown, EVENTPIPE_SESSION* pSession) = 0;
    // The configuration is passed by value (a 32-byte structure on 64-bit).
    virtual HRESULT CORPROF_MIN_CALL EventPipeAddProviderToSession(
        EVENTPIPE_SESSION session, COR_PRF_EVENTPIPE_PROVIDER_CONFIG providerConfig) = 0;
    virtual HRESULT CORPROF_MIN_CALL EventPipeStopSession(EVENTPIPE_SESSION session) = 0;
    virtual HRESULT CORPROF_MIN_CALL EventPipeCreateProvider(const WCHAR* providerName,
                                                             EVENTPIPE_PROVIDER* pProvider) = 0;
    virtual HRESULT CORPROF_MIN_CALL EventPipeGetProviderInfo(EVENTPIPE_PROVIDER provider,
                                                              ULONG cchName, ULONG* pcchName,
                                                              WCHAR providerName[]) = 0;
    virtual HRESULT CORPROF_MIN_CALL EventPipeDefineEvent(
        EVENTPIPE_PROVIDER provider, const WCHAR* eventName, UINT32 eventID, UINT64 keywords,
        UINT32 eventVersion, UINT32 level, UINT8 opcode, BOOL needStack, UINT32 cParamDescs,
        COR_PRF_EVENTPIPE_PARAM_DESC pParamDescs[], EVENTPIPE_EVENT* pEvent) = 0;
    virtual HRESULT CORPROF_MIN_CALL EventPipeWriteEvent(EVENTPIPE_EVENT event, UINT32 cData,
                                                         COR_PRF_EVENT_DATA data[],
                                                         LPCGUID pActivityId,
                                                         LPCGUID pRelatedActivityId) = 0;
};

// ---------------------------------------------------------------------------
// ProfilerCallbackBase: every callback answers S_OK, so a profiler overrides
// only what it uses. Reference counting: a new object starts with one
// reference, owned by whoever constructed it; the object deletes itself
// when the count reaches zero, so create it with `new`.
// ---------------------------------------------------------------------------

class ProfilerCallbackBase : public ICorProfilerCallback10 {
public:
    ProfilerCallbackBase() = default;
    ProfilerCallbackBase(const ProfilerCallbackBase&) = delete;
    ProfilerCallbackBase& operator=(const ProfilerCallbackBase&) = delete;
    virtual ~ProfilerCallbackBase() = default;

    // IUnknown
    HRESULT CORPROF_MIN_CALL QueryInterface(REFIID riid, void** ppvObject) override {
        if (ppvObject == nullptr) return E_POINTER;
        if (riid == IID_IUnknown || riid == IID_ICorProfilerCallback ||
            riid == IID_ICorProfilerCallback2 || riid == IID_ICorProfilerCallback3 ||
            riid == IID_ICorProfilerCallback4 || riid == IID_ICorProfilerCallback5 ||
            riid == IID_ICorProfilerCallback6 || riid == IID_ICorProfilerCallback7 ||
            riid == IID_ICorProfilerCallback8 || riid == IID_ICorProfilerCallback9 ||
            riid == IID_ICorProfilerCallback10) {
            // Single inheritance: every one of these interfaces starts at the
            // same address with the same leading slots.
            *ppvObject = static_cast<ICorProfilerCallback10*>(this);
            AddRef();
            return S_OK;
        }
        *ppvObject = nullptr;
        return E_NOINTERFACE;
    }
    ULONG CORPROF_MIN_CALL AddRef() override {
        return refs_.fetch_add(1, std::memory_order_relaxed) + 1;
    }
    ULONG CORPROF_MIN_CALL Release() override {
        const ULONG left = refs_.fetch_sub(1, std::memory_order_acq_rel) - 1;
        if (left == 0) delete this;
        return left;
    }

    // ICorProfilerCallback
    HRESULT CORPROF_MIN_CALL Initialize(IUnknown*) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL Shutdown() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL AppDomainCreationStarted(AppDomainID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL AppDomainCreationFinished(
        AppDomainID, HRESULT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL AppDomainShutdownStarted(AppDomainID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL AppDomainShutdownFinished(
        AppDomainID, HRESULT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL AssemblyLoadStarted(AssemblyID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL AssemblyLoadFinished(AssemblyID, HRESULT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL AssemblyUnloadStarted(AssemblyID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL AssemblyUnloadFinished(AssemblyID, HRESULT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ModuleLoadStarted(ModuleID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ModuleLoadFinished(ModuleID, HRESULT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ModuleUnloadStarted(ModuleID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ModuleUnloadFinished(ModuleID, HRESULT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ModuleAttachedToAssembly(
        ModuleID, AssemblyID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ClassLoadStarted(ClassID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ClassLoadFinished(ClassID, HRESULT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ClassUnloadStarted(ClassID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ClassUnloadFinished(ClassID, HRESULT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL FunctionUnloadStarted(FunctionID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL JITCompilationStarted(FunctionID, BOOL) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL JITCompilationFinished(
        FunctionID, HRESULT, BOOL) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL JITCachedFunctionSearchStarted(
        FunctionID, BOOL*) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL JITCachedFunctionSearchFinished(
        FunctionID, COR_PRF_JIT_CACHE) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL JITFunctionPitched(FunctionID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL JITInlining(FunctionID, FunctionID, BOOL*) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ThreadCreated(ThreadID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ThreadDestroyed(ThreadID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ThreadAssignedToOSThread(ThreadID, DWORD) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RemotingClientInvocationStarted() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RemotingClientSendingMessage(GUID*, BOOL) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RemotingClientReceivingReply(GUID*, BOOL) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RemotingClientInvocationFinished() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RemotingServerReceivingMessage(GUID*, BOOL) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RemotingServerInvocationStarted() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RemotingServerInvocationReturned() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RemotingServerSendingReply(GUID*, BOOL) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL UnmanagedToManagedTransition(
        FunctionID, COR_PRF_TRANSITION_REASON) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ManagedToUnmanagedTransition(
        FunctionID, COR_PRF_TRANSITION_REASON) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RuntimeSuspendStarted(COR_PRF_SUSPEND_REASON) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RuntimeSuspendFinished() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RuntimeSuspendAborted() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RuntimeResumeStarted() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RuntimeResumeFinished() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RuntimeThreadSuspended(ThreadID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RuntimeThreadResumed(ThreadID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL MovedReferences(
        ULONG, ObjectID[], ObjectID[], ULONG[]) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ObjectAllocated(ObjectID, ClassID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ObjectsAllocatedByClass(
        ULONG, ClassID[], ULONG[]) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ObjectReferences(
        ObjectID, ClassID, ULONG, ObjectID[]) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RootReferences(ULONG, ObjectID[]) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionThrown(ObjectID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionSearchFunctionEnter(FunctionID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionSearchFunctionLeave() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionSearchFilterEnter(FunctionID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionSearchFilterLeave() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionSearchCatcherFound(FunctionID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionOSHandlerEnter(UINT_PTR) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionOSHandlerLeave(UINT_PTR) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionUnwindFunctionEnter(FunctionID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionUnwindFunctionLeave() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionUnwindFinallyEnter(FunctionID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionUnwindFinallyLeave() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionCatcherEnter(FunctionID, ObjectID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionCatcherLeave() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL COMClassicVTableCreated(
        ClassID, REFGUID, void*, ULONG) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL COMClassicVTableDestroyed(
        ClassID, REFGUID, void*) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionCLRCatcherFound() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ExceptionCLRCatcherExecute() override { return S_OK; }

    // ICorProfilerCallback2
    HRESULT CORPROF_MIN_CALL ThreadNameChanged(ThreadID, ULONG, WCHAR[]) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL GarbageCollectionStarted(
        std::int32_t, BOOL[], COR_PRF_GC_REASON) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL SurvivingReferences(
        ULONG, ObjectID[], ULONG[]) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL GarbageCollectionFinished() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL FinalizeableObjectQueued(DWORD, ObjectID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL RootReferences2(
        ULONG, ObjectID[], COR_PRF_GC_ROOT_KIND[], COR_PRF_GC_ROOT_FLAGS[],
        UINT_PTR[]) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL HandleCreated(GCHandleID, ObjectID) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL HandleDestroyed(GCHandleID) override { return S_OK; }

    // ICorProfilerCallback3
    HRESULT CORPROF_MIN_CALL InitializeForAttach(IUnknown*, void*, UINT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ProfilerAttachComplete() override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ProfilerDetachSucceeded() override { return S_OK; }

    // ICorProfilerCallback4
    HRESULT CORPROF_MIN_CALL ReJITCompilationStarted(
        FunctionID, ReJITID, BOOL) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL GetReJITParameters(
        ModuleID, mdMethodDef, ICorProfilerFunctionControl*) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ReJITCompilationFinished(
        FunctionID, ReJITID, HRESULT, BOOL) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL ReJITError(
        ModuleID, mdMethodDef, FunctionID, HRESULT) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL MovedReferences2(
        ULONG, ObjectID[], ObjectID[], SIZE_T[]) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL SurvivingReferences2(
        ULONG, ObjectID[], SIZE_T[]) override { return S_OK; }

    // ICorProfilerCallback5
    HRESULT CORPROF_MIN_CALL ConditionalWeakTableElementReferences(
        ULONG, ObjectID[], ObjectID[], GCHandleID[]) override { return S_OK; }

    // ICorProfilerCallback6
    HRESULT CORPROF_MIN_CALL GetAssemblyReferences(
        const WCHAR*, ICorProfilerAssemblyReferenceProvider*) override { return S_OK; }

    // ICorProfilerCallback7
    HRESULT CORPROF_MIN_CALL ModuleInMemorySymbolsUpdated(ModuleID) override { return S_OK; }

    // ICorProfilerCallback8
    HRESULT CORPROF_MIN_CALL DynamicMethodJITCompilationStarted(
        FunctionID, BOOL, LPCBYTE, ULONG) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL DynamicMethodJITCompilationFinished(
        FunctionID, HRESULT, BOOL) override { return S_OK; }

    // ICorProfilerCallback9
    HRESULT CORPROF_MIN_CALL DynamicMethodUnloaded(FunctionID) override { return S_OK; }

    // ICorProfilerCallback10
    HRESULT CORPROF_MIN_CALL EventPipeEventDelivered(
        EVENTPIPE_PROVIDER, DWORD, DWORD, ULONG, LPCBYTE, ULONG, LPCBYTE, LPCGUID, LPCGUID,
        ThreadID, ULONG, UINT_PTR[]) override { return S_OK; }
    HRESULT CORPROF_MIN_CALL EventPipeProviderCreated(EVENTPIPE_PROVIDER) override { return S_OK; }

private:
    std::atomic<ULONG> refs_{1};
};

// ---------------------------------------------------------------------------
// Layout checks.
// ---------------------------------------------------------------------------

static_assert(sizeof(WCHAR) == 2, "the runtime's strings are UTF-16");
static_assert(sizeof(HRESULT) == 4 && sizeof(ULONG) == 4 && sizeof(DWORD) == 4 &&
                  sizeof(BOOL) == 4 && sizeof(UINT32) == 4 && sizeof(mdToken) == 4,
              "32-bit scalar types");
static_assert(sizeof(UINT_PTR) == sizeof(void*), "IDs are pointer-sized");
static_assert(sizeof(ThreadID) == sizeof(void*) && sizeof(FunctionID) == sizeof(void*) &&
                  sizeof(ObjectID) == sizeof(void*) && sizeof(EVENTPIPE_PROVIDER) == sizeof(void*),
              "IDs are pointer-sized");
static_assert(sizeof(EVENTPIPE_SESSION) == 8, "EventPipe session handle is 64-bit");
static_assert(sizeof(GUID) == 16, "GUID is 16 bytes");
static_assert(sizeof(COR_PRF_JIT_CACHE) == 4 && sizeof(COR_PRF_TRANSITION_REASON) == 4 &&
                  sizeof(COR_PRF_SUSPEND_REASON) == 4 && sizeof(COR_PRF_GC_REASON) == 4 &&
                  sizeof(COR_PRF_GC_ROOT_KIND) == 4 && sizeof(COR_PRF_GC_ROOT_FLAGS) == 4 &&
                  sizeof(COR_PRF_STATIC_TYPE) == 4 && sizeof(COR_PRF_RUNTIME_TYPE) == 4,
              "enums are 32-bit");
static_assert(sizeof(COR_PRF_EVENTPIPE_PARAM_DESC) == 8 + sizeof(void*), "param desc layout");
static_assert(sizeof(COR_PRF_EVENT_DATA) == 16, "event data layout");
static_assert(sizeof(COR_IL_MAP) == 12 && sizeof(COR_DEBUG_IL_TO_NATIVE_MAP) == 12,
              "IL map layouts");
static_assert(sizeof(FunctionIDOrClientID) == sizeof(void*), "passed in one register");
// 64-bit layouts (the runtime reads these structures directly).
inline constexpr bool kIs64Bit = sizeof(void*) == 8;
static_assert(!kIs64Bit || sizeof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG) == 32,
              "provider config layout");
static_assert(!kIs64Bit || (offsetof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, keywords) == 8 &&
                            offsetof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, loggingLevel) == 16 &&
                            offsetof(COR_PRF_EVENTPIPE_PROVIDER_CONFIG, filterData) == 24),
              "provider config layout");
static_assert(!kIs64Bit || (sizeof(COR_PRF_GC_GENERATION_RANGE) == 32 &&
                            sizeof(COR_PRF_CODE_INFO) == 16 &&
                            sizeof(COR_PRF_EX_CLAUSE_INFO) == 32),
              "GC range / code info / clause info layouts");

}  // namespace clretw_example::cor
