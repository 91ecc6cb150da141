// SPDX-License-Identifier: MIT
#include "record/data_file_output.h"

#include "platform/pages.h"

namespace memusage {
namespace {

// This thread is writing the record buffer: the merge it may be part of has caught up.
__thread bool writing_buffer_here = false;

}  // namespace

bool DataFileOutput::open(DataFile* file, uint32_t buffer_records, EventStream& stream) {
    stream.output = static_cast<Record*>(allocate_pages(size_t{buffer_records} * sizeof(Record)));
    if (stream.output == nullptr) return false;
    stream.output_capacity = buffer_records;
    file_ = file;
    return true;
}

void DataFileOutput::write(EventStream& stream) {
    writing_buffer_here = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (file_ != nullptr) {
        file_->append(stream.output, stream.output_used);
        if (complete_on_write_.load(std::memory_order_relaxed)) {
            file_->write_header(stream.total_peak, stream.run_peak(), stream.stack_peak,
                                stream.last_time);
            header_written_ = true;
        }
    }
    stream.output_used = 0;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    writing_buffer_here = false;
}

bool DataFileOutput::writing_here() { return writing_buffer_here; }

void DataFileOutput::complete(EventStream& stream, uint64_t end_time) {
    if (file_ == nullptr) return;
    write(stream);
    if (stream.last_time > end_time) end_time = stream.last_time;
    file_->write_header(stream.total_peak, stream.run_peak(), stream.stack_peak, end_time);
    file_->close();
    file_ = nullptr;
    stream.output = nullptr;
}

DataFile* DataFileOutput::leave_in_child(EventStream& stream) {
    DataFile* file = file_;
    file_ = nullptr;
    stream.output = nullptr;
    stream.output_used = 0;
    return file;
}

}  // namespace memusage
