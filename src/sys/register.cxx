/*
   register.cxx - package initialisation and registration of every solver type of libpetsckp.

   A type is registered here only when it works; each solver directory provides its Create routine.
*/
#include "kp_sys.hpp"
#include "petsckp_types.h"

PetscClassId  PETSCKP_CLASSID;
PetscLogEvent PETSCKP_DeviceMatSetup, PETSCKP_DeviceMatUpdate, PETSCKP_SpMV;
PetscLogEvent PETSCKP_DeflSpace, PETSCKP_DeflCoarse;
PetscLogEvent PETSCKP_MGGalerkin, PETSCKP_MGCoarseFactor, PETSCKP_MGCoarseSolve;
PetscLogEvent PETSCKP_MGGalerkinGhostP, PETSCKP_MGGalerkinTranspose, PETSCKP_MGGalerkinLocal, PETSCKP_MGGalerkinMerge;
PetscLogEvent PETSCKP_MGReplicated;
PetscLogEvent KSP_DCG_Setup, KSP_DCG_Deflate, KSP_DCG_VecOps;
PetscLogEvent PC_Neumann_Setup, PC_Neumann_Apply, PC_Neumann_DeflSetup, PC_Neumann_Deflate;
PetscLogEvent PC_PSORMG_SetUp, PC_PSORMG_Cycle, PC_PSORMG_Sweep;
PetscLogEvent PC_PSCR_SetUp, PC_PSCR_Apply;
PetscLogEvent PC_UAAMG_SetUp, PC_UAAMG_Aggregate, PC_UAAMG_Galerkin, PC_UAAMG_SmootherSetUp, PC_UAAMG_CoarseFactor, PC_UAAMG_Apply, PC_UAAMG_Smooth;
PetscLogEvent TAOLBFGSB_Cauchy, TAOLBFGSB_Breakpoints, TAOLBFGSB_Subspace, TAOLBFGSB_LineSearch, TAOLBFGSB_Update;

static PetscBool PetscKPPackageInitialized = PETSC_FALSE;
static PetscBool PetscKPTypesRegistered    = PETSC_FALSE;

/*@C
  PetscKPFinalizePackage - called by `PetscFinalize()` to free the package's global state; a later
  `PetscInitialize()` registers the class, the log events and the types again

  Level: developer

.seealso: `PetscKPInitializePackage()`
@*/
PetscErrorCode PetscKPFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscKPPackageInitialized = PETSC_FALSE;
  PetscKPTypesRegistered    = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPInitializePackage - registers the class and the log events of libpetsckp, those of every solver type
  included (the only place where petsckp registers an event)

  Level: developer

.seealso: `PetscKPRegisterAll()`
@*/
PetscErrorCode PetscKPInitializePackage(void)
{
  PetscFunctionBegin;
  if (PetscKPPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PetscKPPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("PetscKP", &PETSCKP_CLASSID));
  PetscCall(PetscLogEventRegister("KPDevMatSetup", PETSCKP_CLASSID, &PETSCKP_DeviceMatSetup));
  PetscCall(PetscLogEventRegister("KPDevMatUpdate", PETSCKP_CLASSID, &PETSCKP_DeviceMatUpdate));
  PetscCall(PetscLogEventRegister("KPSpMV", PETSCKP_CLASSID, &PETSCKP_SpMV));
  PetscCall(PetscLogEventRegister("KPDeflSpace", PETSCKP_CLASSID, &PETSCKP_DeflSpace));
  PetscCall(PetscLogEventRegister("KPDeflCoarse", PETSCKP_CLASSID, &PETSCKP_DeflCoarse));
  /* the multigrid layer (kp_mg): Galerkin products of the hierarchy, coarsest-level factorisation and solves, visits of
     the replicated coarse levels (each with one gather) */
  PetscCall(PetscLogEventRegister("KPMGGalerkin", PETSCKP_CLASSID, &PETSCKP_MGGalerkin));
  PetscCall(PetscLogEventRegister("KPMGGalGhostP", PETSCKP_CLASSID, &PETSCKP_MGGalerkinGhostP));
  PetscCall(PetscLogEventRegister("KPMGGalTranspose", PETSCKP_CLASSID, &PETSCKP_MGGalerkinTranspose));
  PetscCall(PetscLogEventRegister("KPMGGalLocal", PETSCKP_CLASSID, &PETSCKP_MGGalerkinLocal));
  PetscCall(PetscLogEventRegister("KPMGGalMerge", PETSCKP_CLASSID, &PETSCKP_MGGalerkinMerge));
  PetscCall(PetscLogEventRegister("KPMGCoarseFactor", PETSCKP_CLASSID, &PETSCKP_MGCoarseFactor));
  PetscCall(PetscLogEventRegister("KPMGCoarseSolve", PETSCKP_CLASSID, &PETSCKP_MGCoarseSolve));
  PetscCall(PetscLogEventRegister("KPMGReplicated", PETSCKP_CLASSID, &PETSCKP_MGReplicated)); /* one per visit of the replicated levels */
  /* KSPDCG */
  PetscCall(PetscLogEventRegister("KSPDCGSetup", KSP_CLASSID, &KSP_DCG_Setup));
  PetscCall(PetscLogEventRegister("KSPDCGDeflate", KSP_CLASSID, &KSP_DCG_Deflate));
  PetscCall(PetscLogEventRegister("KSPDCGVecOps", KSP_CLASSID, &KSP_DCG_VecOps));
  /* PCNEUMANN */
  PetscCall(PetscLogEventRegister("PCNeumannSetup", PC_CLASSID, &PC_Neumann_Setup));
  PetscCall(PetscLogEventRegister("PCNeumannApply", PC_CLASSID, &PC_Neumann_Apply));
  PetscCall(PetscLogEventRegister("PCNeumannDeflSetup", PC_CLASSID, &PC_Neumann_DeflSetup));
  PetscCall(PetscLogEventRegister("PCNeumannDeflate", PC_CLASSID, &PC_Neumann_Deflate));
  /* PCPSORMG */
  PetscCall(PetscLogEventRegister("PCPSORMGSetUp", PC_CLASSID, &PC_PSORMG_SetUp));
  PetscCall(PetscLogEventRegister("PCPSORMGCycle", PC_CLASSID, &PC_PSORMG_Cycle));
  PetscCall(PetscLogEventRegister("PCPSORMGSweep", PC_CLASSID, &PC_PSORMG_Sweep));
  /* PCPSCR */
  PetscCall(PetscLogEventRegister("PCPSCRSetUp", PC_CLASSID, &PC_PSCR_SetUp));
  PetscCall(PetscLogEventRegister("PCPSCRApply", PC_CLASSID, &PC_PSCR_Apply));
  /* PCUAAMG */
  PetscCall(PetscLogEventRegister("PCUAAMGSetUp", PC_CLASSID, &PC_UAAMG_SetUp));
  PetscCall(PetscLogEventRegister("PCUAAMGAggregate", PC_CLASSID, &PC_UAAMG_Aggregate));
  PetscCall(PetscLogEventRegister("PCUAAMGGalerkin", PC_CLASSID, &PC_UAAMG_Galerkin));
  PetscCall(PetscLogEventRegister("PCUAAMGSmoothSetUp", PC_CLASSID, &PC_UAAMG_SmootherSetUp));
  PetscCall(PetscLogEventRegister("PCUAAMGCoarseFact", PC_CLASSID, &PC_UAAMG_CoarseFactor));
  PetscCall(PetscLogEventRegister("PCUAAMGApply", PC_CLASSID, &PC_UAAMG_Apply));
  PetscCall(PetscLogEventRegister("PCUAAMGSmooth", PC_CLASSID, &PC_UAAMG_Smooth));
  /* TAOLBFGSB */
  PetscCall(PetscLogEventRegister("LBFGSBCauchy", TAO_CLASSID, &TAOLBFGSB_Cauchy));
  PetscCall(PetscLogEventRegister("LBFGSBBreakScan", TAO_CLASSID, &TAOLBFGSB_Breakpoints));
  PetscCall(PetscLogEventRegister("LBFGSBSubspace", TAO_CLASSID, &TAOLBFGSB_Subspace));
  PetscCall(PetscLogEventRegister("LBFGSBLineSearch", TAO_CLASSID, &TAOLBFGSB_LineSearch));
  PetscCall(PetscLogEventRegister("LBFGSBUpdate", TAO_CLASSID, &TAOLBFGSB_Update));
  PetscCall(PetscRegisterFinalize(PetscKPFinalizePackage));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPRegisterAll - registers every solver of libpetsckp with PETSc (`PCRegister()`, `KSPRegister()`,
  `TaoRegister()`), so that they can be selected with `-pc_type`, `-ksp_type` and `-tao_type`

  Not Collective

  Level: beginner

  Notes:
  Applications that link libpetsckp call this once after `PetscInitialize()`. Applications that load the
  library at run time with `-dll_append /path/to/libpetsckp.so` need not call it: PETSc calls
  `PetscDLLibraryRegister_petsckp()`, which calls it.

  Kokkos is initialised at the first use of a petsckp solver (here, with a PETSc configured with Kokkos), unless it is
  already initialised, and finalised at the exit of the process when petsckp initialised it, so that an application
  may call `PetscInitialize()` again after `PetscFinalize()` (the class, events and types are then registered again).

.seealso: `PetscKPInitializePackage()`
@*/
PetscErrorCode PetscKPRegisterAll(void)
{
  PetscFunctionBegin;
  if (PetscKPTypesRegistered) PetscFunctionReturn(PETSC_SUCCESS);
  PetscKPTypesRegistered = PETSC_TRUE;
  PetscCall(PetscKPInitializePackage());
  PetscCall(PetscKPRegisterTypes_Private());
#if defined(PETSC_HAVE_KOKKOS)
  /* before PETSc's first Kokkos object (a PETSc configured with Kokkos shares it with petsckp: our CMake refuses
     another one): PETSc finalises a Kokkos it initialised in PetscFinalize(), after which Kokkos cannot start again,
     so that a new PetscInitialize() could use neither PETSc's nor petsckp's Kokkos objects. Only where Kokkos' device
     is present: an application that loads petsckp on a node without a GPU still runs until it uses a GPU object. */
  if (petsckp::KokkosDevicePresent()) PetscCall(petsckp::KokkosInitializeOnce());
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* called by PETSc when the library is loaded with -dll_append */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petsckp(void)
{
  PetscFunctionBegin;
  PetscCall(PetscKPRegisterAll());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPGetVersion - the version string of libpetsckp with the Kokkos backend it was built for

  Not Collective

  Input Parameter:
. len - length of the buffer

  Output Parameter:
. version - the string

  Level: beginner

.seealso: `PetscKPViewBackend()`
@*/
PetscErrorCode PetscKPGetVersion(char version[], size_t len)
{
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(version, len, "petsckp %d.%d.%d (Kokkos %d.%d.%d, execution space %s)", PETSCKP_VERSION_MAJOR, PETSCKP_VERSION_MINOR, PETSCKP_VERSION_PATCH, KOKKOS_VERSION / 10000, (KOKKOS_VERSION / 100) % 100, KOKKOS_VERSION % 100, petsckp::ExecSpace::name()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
  PetscKPViewBackend - prints the version and execution space of libpetsckp

  Collective

  Input Parameter:
. viewer - an ASCII viewer

  Level: beginner

.seealso: `PetscKPGetVersion()`
@*/
PetscErrorCode PetscKPViewBackend(PetscViewer viewer)
{
  char v[256];

  PetscFunctionBegin;
  PetscCall(PetscKPGetVersion(v, sizeof(v)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
