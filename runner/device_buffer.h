// An owning pointer to device memory: freed when it goes out of scope, so that a
// constructor that throws half way (an allocation that fails) frees what it had.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "common/check.h"

namespace sgemm {

template <typename T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) : count_(count) {
        void* p = nullptr;
        check(cudaMalloc(&p, (count ? count : 1) * sizeof(T)));  // cudaMalloc returns 256-byte aligned memory
        ptr_ = static_cast<T*>(p);
    }
    ~DeviceBuffer() {
        if (ptr_) cudaFree(ptr_);  // no throw from a destructor: an error here was already reported
    }
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : ptr_(std::exchange(other.ptr_, nullptr)), count_(std::exchange(other.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            if (ptr_) cudaFree(ptr_);
            ptr_ = std::exchange(other.ptr_, nullptr);
            count_ = std::exchange(other.count_, 0);
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return ptr_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

  private:
    T* ptr_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace sgemm
