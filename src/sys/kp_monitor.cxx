/*
   kp_monitor.cxx - the one way the solver types of libpetsckp read and print their monitors: a PetscViewerAndFormat
   from -<prefix><name> [ascii[:file[:format]]], printed indented like the object's own output, as PETSc's KSP and
   SNES monitors are.
*/
#include "kp_sys.hpp"
#include <petsc/private/petscimpl.h>
#include <cstdarg>

namespace petsckp
{
PetscErrorCode MonitorSetFromOptions(PETSCKP_OPTIONS_ARG, const char name[], const char text[], const char man[], PetscViewerAndFormat **vf)
{
  PetscViewer       viewer = NULL;
  PetscViewerFormat format = PETSC_VIEWER_DEFAULT;
  PetscBool         set    = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsViewer(name, text, man, &viewer, &format, &set));
  if (!set) PetscFunctionReturn(PETSC_SUCCESS); /* keep a monitor set earlier */
  if (*vf) PetscCall(PetscViewerAndFormatDestroy(vf)); /* PETSc 3.18 dereferences a NULL *vf */
  if (viewer) {
    PetscCall(PetscViewerAndFormatCreate(viewer, format, vf));
    PetscCall(PetscViewerDestroy(&viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MonitorPrintf(PetscObject obj, PetscViewerAndFormat *vf, const char format[], ...)
{
  char    line[1024];
  size_t  len;
  va_list ap;

  PetscFunctionBegin;
  if (!vf) PetscFunctionReturn(PETSC_SUCCESS);
  va_start(ap, format);
  PetscCall(PetscVSNPrintf(line, sizeof(line), format, &len, ap));
  va_end(ap);
  PetscCall(PetscViewerPushFormat(vf->viewer, vf->format));
  PetscCall(PetscViewerASCIIAddTab(vf->viewer, obj->tablevel));
  PetscCall(PetscViewerASCIIPrintf(vf->viewer, "%s", line));
  PetscCall(PetscViewerASCIISubtractTab(vf->viewer, obj->tablevel));
  PetscCall(PetscViewerPopFormat(vf->viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace petsckp
