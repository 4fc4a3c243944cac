// See include/loupe_vision.h.
#include "loupe_vision.h"

#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

void set_message(char *message, const char *text) {
    if (message) std::snprintf(message, LV_MESSAGE_CAPACITY, "%s", text);
}

// Once per process, before the first detection.
void configure() {
    static std::once_flag once;
    std::call_once(once, [] {
        // The service already runs one piece of work per core on its own worker threads; OpenCV's
        // thread pool beside them would multiply each request's threads by the core count and
        // make one request's CPU unbounded by the queue that is meant to bound it.
        cv::setNumThreads(0);
        // A probe of OpenCL runtimes costs start-up time and finds none on a server.
        cv::ocl::setUseOpenCL(false);
    });
}

// Loaded classifiers by cascade file. A CascadeClassifier keeps per-call buffers, so each is
// lent to one caller at a time and given back; a file is loaded again only when every loaded
// copy is in use, so there are at most as many copies as detections ever ran at once.
class CascadePool {
public:
    std::unique_ptr<cv::CascadeClassifier> take(const std::string &path, char *message) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            auto &list = idle_[path];
            if (!list.empty()) {
                auto classifier = std::move(list.back());
                list.pop_back();
                return classifier;
            }
        }
        // Checked first: OpenCV itself would also print its own error line for a missing file.
        if (FILE *file = std::fopen(path.c_str(), "rb")) {
            std::fclose(file);
        } else {
            std::snprintf(message, LV_MESSAGE_CAPACITY, "cannot read the cascade %s", path.c_str());
            return nullptr;
        }
        auto classifier = std::make_unique<cv::CascadeClassifier>();
        if (!classifier->load(path) || classifier->empty()) {
            std::snprintf(message, LV_MESSAGE_CAPACITY, "cannot load the cascade %s", path.c_str());
            return nullptr;
        }
        return classifier;
    }

    void give(const std::string &path, std::unique_ptr<cv::CascadeClassifier> classifier) {
        std::lock_guard<std::mutex> lock(mutex_);
        idle_[path].push_back(std::move(classifier));
    }

private:
    std::mutex mutex_;
    std::unordered_map<std::string, std::vector<std::unique_ptr<cv::CascadeClassifier>>> idle_;
};

// Never destroyed: a detection on a worker thread may outlive static destruction at exit.
CascadePool &pool() {
    static CascadePool *shared = new CascadePool();
    return *shared;
}

// A classifier lent by the pool for one call, given back when the lease ends, also when OpenCV
// throws.
class Lease {
public:
    Lease(const char *path, char *message) : path_(path), classifier_(pool().take(path_, message)) {}
    ~Lease() {
        if (classifier_) pool().give(path_, std::move(classifier_));
    }
    Lease(const Lease &) = delete;
    Lease &operator=(const Lease &) = delete;
    cv::CascadeClassifier *get() const { return classifier_.get(); }

private:
    std::string path_;
    std::unique_ptr<cv::CascadeClassifier> classifier_;
};

bool valid_image(const uint8_t *grey, int32_t width, int32_t height, int32_t bytes_per_row, char *message) {
    if (!grey || width <= 0 || height <= 0 || bytes_per_row < width) {
        set_message(message, "not a grey image");
        return false;
    }
    return true;
}

// Runs `body`, turning any exception into LV_ERROR and its message.
template <typename Body> int32_t guarded(char *message, Body body) {
    try {
        configure();
        return body();
    } catch (const cv::Exception &error) {
        set_message(message, error.what());
    } catch (const std::bad_alloc &) {
        set_message(message, "out of memory");
    } catch (const std::exception &error) {
        set_message(message, error.what());
    } catch (...) {
        set_message(message, "unknown OpenCV failure");
    }
    return LV_ERROR;
}

}  // namespace

extern "C" int32_t lv_interface_version(void) { return LV_INTERFACE_VERSION; }

extern "C" int32_t lv_detect_cascade(const char *cascade_path, const uint8_t *grey, int32_t width, int32_t height,
                                     int32_t bytes_per_row, double scale_factor, int32_t min_neighbors, int32_t min_side,
                                     int32_t *boxes, int32_t capacity, char *message) {
    if (!cascade_path || !valid_image(grey, width, height, bytes_per_row, message)) {
        if (!cascade_path) set_message(message, "no cascade file");
        return LV_ERROR;
    }
    if (!(scale_factor > 1.0) || min_neighbors < 0 || min_side < 0 || capacity < 0 || (capacity > 0 && !boxes)) {
        set_message(message, "invalid detection parameters");
        return LV_ERROR;
    }
    return guarded(message, [&]() -> int32_t {
        Lease lease(cascade_path, message);
        if (!lease.get()) return LV_ERROR;
        // The caller's pixels, not copied: OpenCV only reads them.
        const cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(grey), static_cast<size_t>(bytes_per_row));
        std::vector<cv::Rect> found;
        lease.get()->detectMultiScale(image, found, scale_factor, min_neighbors, 0, cv::Size(min_side, min_side));
        const size_t written = std::min(found.size(), static_cast<size_t>(capacity));
        for (size_t i = 0; i < written; i++) {
            boxes[4 * i] = found[i].x;
            boxes[4 * i + 1] = found[i].y;
            boxes[4 * i + 2] = found[i].width;
            boxes[4 * i + 3] = found[i].height;
        }
        return static_cast<int32_t>(std::min(found.size(), static_cast<size_t>(INT32_MAX)));
    });
}

extern "C" int32_t lv_good_features(const uint8_t *grey, int32_t width, int32_t height, int32_t bytes_per_row,
                                    int32_t max_corners, double quality_level, double min_distance, float *points,
                                    int32_t capacity, char *message) {
    if (!valid_image(grey, width, height, bytes_per_row, message)) return LV_ERROR;
    if (max_corners < 0 || !(quality_level > 0.0) || min_distance < 0 || capacity < 0 || (capacity > 0 && !points)) {
        set_message(message, "invalid feature parameters");
        return LV_ERROR;
    }
    return guarded(message, [&]() -> int32_t {
        const cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(grey), static_cast<size_t>(bytes_per_row));
        std::vector<cv::Point2f> corners;
        cv::goodFeaturesToTrack(image, corners, max_corners, quality_level, min_distance, cv::noArray(), 3, false, 0.04);
        const size_t written = std::min(corners.size(), static_cast<size_t>(capacity));
        for (size_t i = 0; i < written; i++) {
            points[2 * i] = corners[i].x;
            points[2 * i + 1] = corners[i].y;
        }
        return static_cast<int32_t>(std::min(corners.size(), static_cast<size_t>(INT32_MAX)));
    });
}

namespace {

// One eye's correction, as thumbor's red_eye filter makes it with cv2 and numpy.
void correct_eye(cv::Mat eye) {
    std::vector<cv::Mat> channels;
    cv::split(eye, channels);
    const cv::Mat &red = channels[0], &green = channels[1], &blue = channels[2];
    cv::Mat mean(eye.rows, eye.cols, CV_8UC1), mask(eye.rows, eye.cols, CV_8UC1);
    for (int y = 0; y < eye.rows; y++) {
        for (int x = 0; x < eye.cols; x++) {
            // cv2.add saturates; numpy's // floors.
            const int sum = std::min(255, int(blue.at<uint8_t>(y, x)) + int(green.at<uint8_t>(y, x)));
            const uint8_t average = static_cast<uint8_t>(sum / 2);
            const uint8_t r = red.at<uint8_t>(y, x);
            mean.at<uint8_t>(y, x) = average;
            mask.at<uint8_t>(y, x) = (double(r) > 2.0 * average && r > 60) ? 255 : 0;
        }
    }
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(mask.clone(), contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE);
    double largest = 0;
    int chosen = -1;
    for (size_t i = 0; i < contours.size(); i++) {
        const double area = cv::contourArea(contours[i]);
        if (area > largest) {
            largest = area;
            chosen = static_cast<int>(i);
        }
    }
    if (chosen < 0) return;
    mask.setTo(0);
    cv::drawContours(mask, contours, chosen, cv::Scalar(255), cv::FILLED);
    // thumbor asks getStructuringElement for shape MORPH_DILATE, whose value is MORPH_CROSS's.
    cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_CROSS, cv::Size(5, 5)));
    // thumbor passes the tuple (3, 3) as the kernel: a column of two non-zero elements.
    cv::dilate(mask, mask, cv::Mat::ones(2, 1, CV_8UC1), cv::Point(-1, -1), 3);
    for (int y = 0; y < eye.rows; y++) {
        for (int x = 0; x < eye.cols; x++) {
            if (!mask.at<uint8_t>(y, x)) continue;
            cv::Vec4b &pixel = eye.at<cv::Vec4b>(y, x);
            pixel[0] = pixel[1] = pixel[2] = mean.at<uint8_t>(y, x);
        }
    }
}

}  // namespace

extern "C" int32_t lv_red_eye(uint8_t *rgba, int32_t width, int32_t height, int32_t bytes_per_row, const int32_t *faces, int32_t face_count,
                              const char *eye_cascade_path, char *message) {
    if (!eye_cascade_path || !rgba || width <= 0 || height <= 0 || bytes_per_row < 4 * width || face_count < 0 || (face_count > 0 && !faces)) {
        set_message(message, "invalid red-eye parameters");
        return LV_ERROR;
    }
    return guarded(message, [&]() -> int32_t {
        Lease lease(eye_cascade_path, message);
        if (!lease.get()) return LV_ERROR;
        cv::Mat image(height, width, CV_8UC4, rgba, static_cast<size_t>(bytes_per_row));
        const cv::Rect bounds(0, 0, width, height);
        int32_t eyes_found = 0;
        for (int32_t i = 0; i < face_count; i++) {
            const cv::Rect face = cv::Rect(faces[4 * i], faces[4 * i + 1], faces[4 * i + 2], faces[4 * i + 3]) & bounds;
            if (face.empty()) continue;
            cv::Mat face_rgba = image(face), face_rgb;
            cv::cvtColor(face_rgba, face_rgb, cv::COLOR_RGBA2RGB);
            std::vector<cv::Rect> eyes;
            // Three channels in RGB order, as thumbor hands them to the cascade (which reads
            // them as BGR).
            lease.get()->detectMultiScale(face_rgb, eyes, 1.2, 3, 0, cv::Size(20, 20));
            for (const cv::Rect &eye : eyes) correct_eye(face_rgba(eye & cv::Rect(0, 0, face.width, face.height)));
            eyes_found += static_cast<int32_t>(eyes.size());
        }
        return eyes_found;
    });
}
