/* Helpers of the unit tests: moving std::vectors to and from device views, random data, tolerances. */
#pragma once

#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>
#include "kp_kokkos.hpp"

namespace kptest
{
using namespace petsckp;

/* the message of an option error names the option, or is PETSc's own range check of a real option (newer PETSc
   rejects a NaN or infinite value of PetscOptionsReal() itself, before the setter sees it, without naming the option) */
inline bool NamesOption(const std::string &msg, const std::string &option)
{
  return msg.find(option) != std::string::npos || msg.find("allowed bound") != std::string::npos;
}

/* the sizes every kernel is tested at */
inline std::vector<Int> Sizes() { return {0, 1, 13, 597, 100003}; }

template <class T>
View<T> ToDevice(const std::vector<T> &h, const char *label = "test")
{
  View<T> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), h.size());
  Kokkos::deep_copy(d, HostUView<const T>(h.data(), h.size()));
  return d;
}

template <class V>
std::vector<typename V::non_const_value_type> ToHost(const V &d)
{
  std::vector<typename V::non_const_value_type> h(d.extent(0));
  Kokkos::fence();
  Kokkos::deep_copy(HostUView<typename V::non_const_value_type>(h.data(), h.size()), d);
  return h;
}

inline std::vector<Scalar> RandomVector(Int n, unsigned seed, double lo = -1, double hi = 1)
{
  std::mt19937                           g(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<Scalar>                    v(n);
  for (auto &x : v) x = u(g);
  return v;
}

/* max |a - b| / max(1, max |b|) */
inline double RelErr(const std::vector<Scalar> &a, const std::vector<Scalar> &b)
{
  double e = 0, s = 1;
  if (a.size() != b.size()) return INFINITY;
  for (size_t i = 0; i < a.size(); i++) {
    e = std::max(e, std::abs((double)(a[i] - b[i])));
    s = std::max(s, std::abs((double)b[i]));
    if (std::isnan((double)a[i])) return INFINITY;
  }
  return e / s;
}

/* a random sparse matrix in host CSR form with some empty rows and a full diagonal otherwise */
struct HostCsr {
  Int                 nrows = 0, ncols = 0;
  std::vector<Int>    rowptr, colidx;
  std::vector<Scalar> vals;
};

inline HostCsr RandomCsr(Int nrows, Int ncols, unsigned seed, Int maxlen = 9)
{
  std::mt19937 g(seed);
  HostCsr      A;
  A.nrows = nrows;
  A.ncols = ncols;
  A.rowptr.push_back(0);
  for (Int i = 0; i < nrows; i++) {
    Int len = (ncols == 0 || i % 11 == 5) ? 0 : (Int)(g() % (unsigned)std::min<Int>(maxlen, ncols)) + 1;
    std::vector<Int> cols;
    while ((Int)cols.size() < len) {
      Int c = (Int)(g() % (unsigned)ncols);
      if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    for (Int c : cols) {
      A.colidx.push_back(c);
      A.vals.push_back(std::uniform_real_distribution<double>(-1, 1)(g));
    }
    A.rowptr.push_back((Int)A.colidx.size());
  }
  return A;
}

inline std::vector<Scalar> RefSpmv(const HostCsr &A, const std::vector<Scalar> &x)
{
  std::vector<Scalar> y(A.nrows, 0);
  for (Int i = 0; i < A.nrows; i++)
    for (Int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) y[i] += A.vals[k] * x[A.colidx[k]];
  return y;
}
} // namespace kptest
