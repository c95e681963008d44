# NA_SONAME(VARIABLE, LIBS, FUNCTION, PREFIX, DEFAULT)
# ---------------------------------------------------
# The shared object that a program linked with LIBS and calling FUNCTION
# records as needed (the name nodeaudit passes to dlopen()), found with
# readelf from the linked test program: the first NEEDED entry starting
# with PREFIX (e.g. "libpci.so.").  DEFAULT when it cannot be told.  A
# VARIABLE already set (./configure VARIABLE=...) is kept.  Defines
# VARIABLE in config.h.
AC_DEFUN([NA_SONAME],
[AC_REQUIRE([NA_PROG_READELF])dnl
AC_ARG_VAR([$1], [the shared object of $4* that nodeaudit loads when it needs it (default: found at configure time, else $5)])
AC_MSG_CHECKING([which shared object to load for $3])
AS_IF([test -z "$$1"],
  [na_save_LIBS=$LIBS
   LIBS="$2 $LIBS"
   AC_LINK_IFELSE([AC_LANG_CALL([], [$3])],
     [AS_IF([test "x$READELF" != x],
        [$1=`$READELF -d conftest$EXEEXT 2>/dev/null | sed -n 's/.*(NEEDED).*: .\($4.*\).$/\1/p' | sed -n 1p`])])
   LIBS=$na_save_LIBS
   AS_IF([test -z "$$1"], [$1=$5])])
AC_MSG_RESULT([$$1])
AC_DEFINE_UNQUOTED([$1], ["$$1"], [the shared object nodeaudit loads for $3])
])

AC_DEFUN([NA_PROG_READELF], [AC_CHECK_TOOL([READELF], [readelf])])
