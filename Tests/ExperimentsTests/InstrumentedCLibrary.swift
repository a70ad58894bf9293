import Experiments

// The C library's `usleep` and `sleep(UInt32)` as the Experiments module instruments them. This
// file imports Foundation only through that module, where its declarations shadow Glibc's (as in a
// learner's experiment); a file that imports Foundation itself finds both, equally near, and
// `Experiments.usleep` is ambiguous there.

func instrumentedUsleep(_ microseconds: UInt32) {
    usleep(microseconds)
}

func instrumentedSleep(_ seconds: UInt32) {
    sleep(seconds)
}
