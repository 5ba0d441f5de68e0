// trnccl_torch._C: the ProcessGroupTrnccl class, for trnccl_torch/__init__.py
// to register as the "trnccl" backend.
#include <pybind11/chrono.h>
#include <torch/csrc/utils/pybind.h>

#include "process_group_trnccl.h"

namespace py = pybind11;
using trnccl_torch::ProcessGroupTrnccl;

PYBIND11_MODULE(_C, m) {
  py::module::import("torch.distributed");  // registers c10d.ProcessGroup and Store with pybind
  py::class_<ProcessGroupTrnccl, c10d::ProcessGroup, c10::intrusive_ptr<ProcessGroupTrnccl>>(m, "ProcessGroupTrnccl")
      .def(py::init<const c10::intrusive_ptr<c10d::Store>&, int, int, std::chrono::milliseconds>(), py::arg("store"),
           py::arg("rank"), py::arg("size"), py::arg("timeout"), py::call_guard<py::gil_scoped_release>(),
           "A communicator of its own, rendezvous through `store` (rank 0 publishes the unique id).")
      .def(py::init<ProcessGroupTrnccl&, int, int, std::chrono::milliseconds>(), py::arg("parent"), py::arg("rank"),
           py::arg("size"), py::arg("timeout"), py::call_guard<py::gil_scoped_release>(),
           "A communicator split from `parent` (trncclCommSplit); every rank of the parent calls it.")
      .def("shrink", &ProcessGroupTrnccl::shrink, py::arg("excluded"), py::arg("timeout"),
           py::call_guard<py::gil_scoped_release>(),
           "The survivors without the `excluded` ranks (trncclCommShrink, outstanding work revoked first).")
      .def_property_readonly("transport", &ProcessGroupTrnccl::transportName,
                             "What carries this group's bytes (trncclCommGetTransport).");
}
