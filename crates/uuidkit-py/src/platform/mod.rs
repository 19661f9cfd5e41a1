//! The calls into CPython's C API that PyO3 has no safe form of, all for speed: making a
//! `uuid.UUID` without running `UUID.__init__` (what CPython 3.14's own
//! `UUID._from_int` does in Python with `object.__new__` and `object.__setattr__` of the
//! two slots: here `PyType_GenericAlloc` once and `PyObject_GenericSetAttr` twice, then
//! `PyObject_GC_UnTrack`); a list allocated at its full length; a `str`'s UTF-8 in
//! place, and a `str` made of UTF-8 bytes without checking them twice; a 128-bit `int`
//! made or read in one call where the interpreter has one. Everything else goes through
//! PyO3's safe API.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyType};

/// A new, empty instance of `cls` (as `object.__new__(cls)`), with `attrs` set through
/// `object.__setattr__`, bypassing the class's own `__setattr__` (which `uuid.UUID`
/// makes refuse every assignment).
///
/// `cls` must be a class whose instances `object.__new__` can make (no `__new__` of its
/// own that must run): `uuid.UUID` is one.
///
/// The instance is then untracked by the cyclic garbage collector, as CPython untracks
/// tuples and dicts that hold no containers: a `uuid.UUID` (slots, no `__dict__`) holds
/// an `int` and a `SafeUUID` member and can be part of no reference cycle, so the
/// collector has nothing to find there, and a million of them made in a batch would
/// otherwise cost more in collections (measured: two thirds of `uuid4_many`'s time)
/// than in making them.
pub fn new_with_slots<'py>(
    cls: &Bound<'py, PyType>,
    attrs: [(&Bound<'py, PyString>, &Bound<'py, PyAny>); 2],
) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    // SAFETY: `cls` is a live type object (the Bound holds a reference, and the GIL is
    // held, as `py` proves). `PyType_GenericAlloc` is what `object.__new__` calls for a
    // class defined in Python (its `tp_alloc`): it returns a new reference to a zeroed,
    // GC-tracked instance, or NULL with an exception set, which `from_owned_ptr_or_err`
    // turns into the `PyErr`.
    let obj = unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyType_GenericAlloc(cls.as_type_ptr(), 0))?
    };
    for (name, value) in attrs {
        // SAFETY: the three pointers are live objects held by Bounds for the duration of
        // the call; `PyObject_GenericSetAttr` (`object.__setattr__`) borrows them, takes
        // its own reference to `value`, and returns -1 with an exception set on failure.
        let rc =
            unsafe { ffi::PyObject_GenericSetAttr(obj.as_ptr(), name.as_ptr(), value.as_ptr()) };
        if rc < 0 {
            return Err(PyErr::fetch(py));
        }
    }
    // SAFETY: `obj` is a live instance of a GC type (as every class with slots), just
    // made and tracked by `PyType_GenericAlloc`; untracking a tracked object is what the
    // function is for, and deallocation untracks only what is still tracked.
    unsafe { ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) };
    Ok(obj)
}

/// A list of `n` items, the `i`-th made by `item(i)`: allocated once at its full length
/// (where appending would grow it a dozen times on the way to a million). A failing
/// `item` leaves the rest of the slots empty, which the list's deallocation allows.
pub fn list_of<'py>(
    py: Python<'py>,
    n: usize,
    mut item: impl FnMut(usize) -> PyResult<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, pyo3::types::PyList>> {
    let len = ffi::Py_ssize_t::try_from(n)
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("list too long"))?;
    // SAFETY: the GIL is held (`py`). `PyList_New` returns a new reference to a list of
    // `len` empty (NULL) slots, or NULL with `MemoryError` set, which
    // `from_owned_ptr_or_err` turns into the `PyErr`.
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(len))? };
    for i in 0..n {
        let obj = item(i)?;
        // SAFETY: `list` is a list of `len` slots and `i < n == len`, so the index is in
        // range; slot `i` is still empty (each is set once), so nothing is leaked; the
        // call steals the reference that `into_ptr` hands over.
        unsafe { ffi::PyList_SetItem(list.as_ptr(), i as ffi::Py_ssize_t, obj.into_ptr()) };
    }
    // SAFETY: `PyList_New` made a list.
    Ok(unsafe { list.cast_into_unchecked() })
}

/// The `str` of `text`, UTF-8 (the texts of UUIDs: ASCII), decoded by CPython as
/// `PyString::new` has it decoded, but taken as bytes: a batch's texts, written into one
/// buffer, are not each checked as `&str` first (that check was a tenth of
/// `uuid7_str_many`'s time). Text that is not UTF-8 is CPython's `UnicodeDecodeError`.
pub fn str_of_utf8<'py>(py: Python<'py>, text: &[u8]) -> PyResult<Bound<'py, PyString>> {
    // SAFETY: the GIL is held (`py`); `text` is `len` readable bytes for the duration of
    // the call, which copies them (a slice is never longer than `isize::MAX`). The call
    // returns a new reference, or NULL with an exception set (invalid UTF-8, no memory),
    // which `from_owned_ptr_or_err` turns into the `PyErr`; the object is a `str`.
    unsafe {
        let p =
            ffi::PyUnicode_FromStringAndSize(text.as_ptr().cast(), text.len() as ffi::Py_ssize_t);
        Ok(Bound::from_owned_ptr_or_err(py, p)?.cast_into_unchecked())
    }
}

// In CPython's C API since 3.3 and exported by every CPython, but part of the stable ABI
// only from 3.10 (so `pyo3::ffi` declares it only there): declared here so that the
// abi3 module for 3.9 reads a `str`'s text in place rather than through a new `bytes`.
unsafe extern "C" {
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut ffi::PyObject,
        size: *mut ffi::Py_ssize_t,
    ) -> *const std::ffi::c_char;
}

/// The UTF-8 text of `s`, in place (CPython keeps it with the string), or the
/// `UnicodeEncodeError` of a string that has none (lone surrogates).
pub fn utf8<'a>(s: &'a Bound<'_, PyString>) -> PyResult<&'a [u8]> {
    let mut len: ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` (a Bound holds it, the GIL is held). The call returns
    // a pointer to `len` bytes of UTF-8 owned by the string object and kept as long as
    // it lives, which the returned borrow of `s` ensures; or NULL with an exception set.
    unsafe {
        let p = PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut len);
        if p.is_null() {
            return Err(PyErr::fetch(s.py()));
        }
        Ok(std::slice::from_raw_parts(p.cast::<u8>(), len as usize))
    }
}

/// A CPython function that makes an `int` from 16 little-endian bytes in one step.
#[derive(Clone, Copy)]
enum IntFromBytes {
    /// `PyLong_FromUnsignedNativeBytes(buffer, n, flags)`, public from CPython 3.13.
    Native(unsafe extern "C" fn(*const std::ffi::c_void, usize, i32) -> *mut ffi::PyObject),
    /// `_PyLong_FromByteArray(bytes, n, little_endian, is_signed)`, exported by every
    /// CPython 3 (private, so looked for only when the public one is missing).
    ByteArray(unsafe extern "C" fn(*const u8, usize, i32, i32) -> *mut ffi::PyObject),
}

/// A CPython function that writes an `int` as 16 little-endian bytes in one step.
#[derive(Clone, Copy)]
enum IntToBytes {
    /// `PyLong_AsNativeBytes(v, buffer, n, flags)`, public from CPython 3.13.
    Native(
        unsafe extern "C" fn(
            *mut ffi::PyObject,
            *mut std::ffi::c_void,
            ffi::Py_ssize_t,
            i32,
        ) -> ffi::Py_ssize_t,
    ),
    /// `_PyLong_AsByteArray(v, bytes, n, little_endian, is_signed)`, exported by every
    /// CPython 3; used only where `PyLong_AsNativeBytes` is missing (3.12 and older),
    /// whose `_PyLong_AsByteArray` has these five parameters (3.13 added a sixth).
    ByteArray(unsafe extern "C" fn(*mut ffi::PyObject, *mut u8, usize, i32, i32) -> i32),
}

/// Looks up `name` among the symbols already loaded (the interpreter's), or null.
fn symbol(name: &std::ffi::CStr) -> *mut std::ffi::c_void {
    #[cfg(unix)]
    {
        // SAFETY: `dlsym` with RTLD_DEFAULT searches the loaded objects for `name`, a
        // NUL-terminated string; it returns null when there is none.
        unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) }
    }
    #[cfg(not(unix))]
    {
        let _ = name;
        std::ptr::null_mut()
    }
}

fn int_to_bytes() -> Option<IntToBytes> {
    static FOUND: std::sync::OnceLock<Option<IntToBytes>> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        let native = symbol(c"PyLong_AsNativeBytes");
        if !native.is_null() {
            // SAFETY: the symbol of that name is the function with this C signature
            // (CPython's Include/cpython/longobject.h, 3.13 and later).
            return Some(IntToBytes::Native(unsafe {
                std::mem::transmute::<
                    *mut std::ffi::c_void,
                    unsafe extern "C" fn(
                        *mut ffi::PyObject,
                        *mut std::ffi::c_void,
                        ffi::Py_ssize_t,
                        i32,
                    ) -> ffi::Py_ssize_t,
                >(native)
            }));
        }
        let array = symbol(c"_PyLong_AsByteArray");
        if !array.is_null() {
            // SAFETY: without `PyLong_AsNativeBytes` this is CPython 3.12 or older,
            // whose `_PyLong_AsByteArray` has this signature (Include/cpython/longobject.h).
            return Some(IntToBytes::ByteArray(unsafe {
                std::mem::transmute::<
                    *mut std::ffi::c_void,
                    unsafe extern "C" fn(*mut ffi::PyObject, *mut u8, usize, i32, i32) -> i32,
                >(array)
            }));
        }
        None
    })
}

/// The value of `v`, an `int`, as a `u128`: an error for a negative one or one of more
/// than 128 bits.
pub fn u128_of(v: &Bound<'_, pyo3::types::PyInt>) -> PyResult<u128> {
    let mut bytes = [0u8; 16];
    let ok = match int_to_bytes() {
        // SAFETY: the GIL is held; `v` is a live `int`; `bytes` is 16 writable bytes.
        // Flags 1 | 4 | 8: little endian, unsigned, negative values rejected. The result
        // is the number of bytes the value needs (more than 16: it did not fit), or -1
        // with an exception set.
        Some(IntToBytes::Native(f)) => {
            let n = unsafe { f(v.as_ptr(), bytes.as_mut_ptr().cast(), 16, 1 | 4 | 8) };
            if n < 0 {
                return Err(PyErr::fetch(v.py()));
            }
            n <= 16
        }
        // SAFETY: as above; unsigned and little endian; -1 with `OverflowError` set when
        // the value is negative or does not fit.
        Some(IntToBytes::ByteArray(f)) => {
            if unsafe { f(v.as_ptr(), bytes.as_mut_ptr(), 16, 1, 0) } < 0 {
                return Err(PyErr::fetch(v.py()));
            }
            true
        }
        None => return v.extract(),
    };
    if ok {
        Ok(u128::from_le_bytes(bytes))
    } else {
        Err(pyo3::exceptions::PyOverflowError::new_err(
            "int too big to convert",
        ))
    }
}

/// Which of the two this interpreter has, looked up once. The stable ABI has neither
/// (for abi3 PyO3 builds a 128-bit int from two halves with a shift and an or: five
/// objects for one), so they are found at run time, and their absence falls back to
/// that.
fn int_from_bytes() -> Option<IntFromBytes> {
    static FOUND: std::sync::OnceLock<Option<IntFromBytes>> = std::sync::OnceLock::new();
    *FOUND.get_or_init(|| {
        let native = symbol(c"PyLong_FromUnsignedNativeBytes");
        if !native.is_null() {
            // SAFETY: the symbol of that name is the function with this C signature
            // (CPython's Include/cpython/longobject.h, 3.13 and later).
            return Some(IntFromBytes::Native(unsafe {
                std::mem::transmute::<
                    *mut std::ffi::c_void,
                    unsafe extern "C" fn(*const std::ffi::c_void, usize, i32) -> *mut ffi::PyObject,
                >(native)
            }));
        }
        let array = symbol(c"_PyLong_FromByteArray");
        if !array.is_null() {
            // SAFETY: the symbol of that name has had this signature in every CPython 3
            // (Include/cpython/longobject.h; Include/longobject.h before 3.8).
            return Some(IntFromBytes::ByteArray(unsafe {
                std::mem::transmute::<
                    *mut std::ffi::c_void,
                    unsafe extern "C" fn(*const u8, usize, i32, i32) -> *mut ffi::PyObject,
                >(array)
            }));
        }
        None
    })
}

/// The Python `int` of `v`.
pub fn int_u128(py: Python<'_>, v: u128) -> PyResult<Bound<'_, PyAny>> {
    let bytes = v.to_le_bytes();
    // SAFETY: the GIL is held (`py`); `bytes` is 16 readable bytes for the duration of
    // the call, which copies them; each function returns a new reference or NULL with
    // an exception set. Flag 1 is Py_ASNATIVEBYTES_LITTLE_ENDIAN (unsigned: the
    // function's name says so); `_PyLong_FromByteArray`'s 1, 0 are little endian,
    // unsigned.
    let p = match int_from_bytes() {
        Some(IntFromBytes::Native(f)) => unsafe { f(bytes.as_ptr().cast(), 16, 1) },
        Some(IntFromBytes::ByteArray(f)) => unsafe { f(bytes.as_ptr(), 16, 1, 0) },
        None => return Ok(v.into_pyobject(py)?.into_any()),
    };
    // SAFETY: `p` is what the call above returned, as described there.
    unsafe { Bound::from_owned_ptr_or_err(py, p) }
}

/// Whether the interpreter has begun finalizing: `Py_IsFinalizing()` (public from
/// CPython 3.13) or `_Py_IsFinalizing()` (3.9-3.12), neither in the stable ABI, so found
/// at run time; `false` where neither is (then only the atexit flag of `release.rs`
/// says so). Both read one atomic of the runtime and may be called without the GIL.
pub fn is_finalizing() -> bool {
    type IsFinalizing = unsafe extern "C" fn() -> std::ffi::c_int;
    static FOUND: std::sync::OnceLock<Option<IsFinalizing>> = std::sync::OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let mut p = symbol(c"Py_IsFinalizing");
        if p.is_null() {
            p = symbol(c"_Py_IsFinalizing");
        }
        // SAFETY: both symbols are `int f(void)` (Include/cpython/pylifecycle.h, and
        // Include/pylifecycle.h from 3.13).
        (!p.is_null())
            .then(|| unsafe { std::mem::transmute::<*mut std::ffi::c_void, IsFinalizing>(p) })
    });
    // SAFETY: the function takes nothing, reads the runtime's finalizing thread state
    // atomically, and is documented as callable without the GIL (sys.is_finalizing).
    found.is_some_and(|f| unsafe { f() } != 0)
}

/// Has `child` run in the child of every later `fork` of this process, as its only
/// thread, before anything else runs there (`pthread_atfork`).
pub fn at_fork_child(child: extern "C" fn()) {
    #[cfg(unix)]
    // SAFETY: `child` is a function that can run in a forked child (it only stores to
    // atomics); registering handlers has no other precondition. The return value is 0
    // or ENOMEM, when the handler is not registered: nothing else can be done then.
    unsafe {
        libc::pthread_atfork(None, None, Some(child));
    }
    #[cfg(not(unix))]
    let _ = child;
}
