#!/usr/bin/env python3
"""How well can *any* window classifier that ignores window length separate the
González 2017 anomalies from regular road? (docs/evaluation.md, "The ceiling")

Repeated stratified 2-fold cross-validation (train on half the files of every class,
score on the other half, many random splits) of three trained classifiers, all
balanced for the 4:1 anomaly:regular ratio:

  local   logistic regression on 9 features of the 1.2 s around the strongest
          band-passed peak (peak, energy, peak-to-peak, jerk, time above 1.5 and
          3 m/s², zero crossings, asymmetry, second peak): what an event detector sees;
  bow     the paper's representation: bag of words over 8-sample subsequences
          (k-means codebook of 32 words, normalised histogram), logistic regression;
  length  the window's length alone: how the windows were cut, not the road.

Needs python3-numpy (Debian). Usage: bench/gonzalez-ceiling.py [DATASET_DIR]
"""
import glob
import os
import sys

import numpy as np

CLASSES = ["asphalt_bumps", "metal_bumps", "potholes", "regular_road", "worn_out_road"]
RATE = 50.0
rng = np.random.default_rng(2017)


def load(root):
    rows = []
    for c in CLASSES:
        for f in sorted(glob.glob(os.path.join(root, c, "*.csv"))):
            rows.append((c, np.loadtxt(f, skiprows=1, ndmin=1)))
    if not rows:
        sys.exit(f"no windows under {root}")
    return rows


def band_pass(x, high=1.0, low=20.0):
    """The detector's band-pass (BandPass.swift): difference of two one-pole low-passes."""
    dt = 1 / RATE
    a_fast = dt / (1 / (2 * np.pi * low) + dt)
    a_slow = dt / (1 / (2 * np.pi * high) + dt)
    fast = slow = x[0]
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        fast += a_fast * (x[i] - fast)
        slow += a_slow * (x[i] - slow)
        y[i] = fast - slow
    return y


def local_features(v):
    y = band_pass(v)
    a = np.abs(y)
    p = int(np.argmax(a))
    s = y[max(0, p - 30):p + 30]              # ±0.6 s: every window is ≥ 1.2 s
    rest = a.copy()
    rest[max(0, p - 15):p + 15] = 0
    return np.log(1e-3 + np.array([
        a[p],
        np.sum(s * s) / RATE,
        np.ptp(s),
        np.mean(np.abs(np.diff(s))) * RATE,
        np.sum(np.abs(s) > 1.5) / RATE,
        np.sum(np.abs(s) > 3) / RATE,
        np.sum(np.diff(np.sign(s)) != 0) / (len(s) / RATE),
        np.max(s) / (np.ptp(s) + 1e-6),
        rest.max(),
    ]))


def logistic(train_x, train_y, test_x, lam=1e-2):
    mu, sd = train_x.mean(0), train_x.std(0) + 1e-9
    a = np.c_[(train_x - mu) / sd, np.ones(len(train_x))]
    b = np.c_[(test_x - mu) / sd, np.ones(len(test_x))]
    w = np.zeros(a.shape[1])
    weight = np.where(train_y == 1, (train_y == 0).sum() / max(1, (train_y == 1).sum()), 1.0)
    for _ in range(3000):
        p = 1 / (1 + np.exp(-a @ w))
        w -= 0.5 * (a.T @ ((p - train_y) * weight) / len(a) + lam * np.r_[w[:-1], 0])
    return 1 / (1 + np.exp(-b @ w)) > 0.5


def subsequences(v, w=8):
    return np.lib.stride_tricks.sliding_window_view(v - np.median(v), w)


def bag_of_words(windows, train, test, k=32):
    pool = np.concatenate([subsequences(windows[i]) for i in train])
    codebook = pool[rng.choice(len(pool), k, replace=False)]
    sample = pool[rng.choice(len(pool), min(len(pool), 8000), replace=False)]
    for _ in range(30):
        label = np.argmin(((sample[:, None] - codebook[None]) ** 2).sum(-1), 1)
        for j in range(k):
            if np.any(label == j):
                codebook[j] = sample[label == j].mean(0)

    def histogram(i):
        words = np.argmin(((subsequences(windows[i])[:, None] - codebook[None]) ** 2).sum(-1), 1)
        h = np.bincount(words, minlength=k).astype(float)
        return np.sqrt(h / h.sum())
    return np.array([histogram(i) for i in train]), np.array([histogram(i) for i in test])


def cross_validate(classes, labels, predict, repeats):
    scores = []
    for _ in range(repeats):
        fold = np.zeros(len(labels), int)
        for c in CLASSES:
            members = np.where(classes == c)[0]
            rng.shuffle(members)
            fold[members[::2]] = 1
        for k in (0, 1):
            train, test = np.where(fold != k)[0], np.where(fold == k)[0]
            flagged = predict(train, test)
            truth = labels[test]
            scores.append((np.mean(flagged == truth), np.mean(flagged[truth == 0]),
                           np.mean(flagged[classes[test] == "potholes"])))
    return np.mean(scores, 0)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "shared", "datasets", "gonzalez-2017")
    rows = load(root)
    classes = np.array([c for c, _ in rows])
    windows = [v for _, v in rows]
    labels = (classes != "regular_road").astype(int)

    peaks = np.array([np.abs(band_pass(v)).max() for v in windows])
    regular, potholes = peaks[classes == "regular_road"], peaks[classes == "potholes"]
    print(f"{len(rows)} windows from {os.path.abspath(root)}")
    print(f"band-passed peak, m/s²: regular road median {np.median(regular):.2f}, "
          f"90th pct {np.percentile(regular, 90):.2f}, max {regular.max():.2f}; "
          f"potholes median {np.median(potholes):.2f}, 10th pct {np.percentile(potholes, 10):.2f}")
    print(f"regular-road windows with a peak above the median pothole's: "
          f"{np.mean(regular > np.median(potholes)):.0%}; pothole windows below the "
          f"regular road's 90th percentile: {np.mean(potholes < np.percentile(regular, 90)):.0%}")

    local = np.array([local_features(v) for v in windows])
    length = np.log(np.array([[len(v)] for v in windows], float))
    def predict_bow(train, test):
        h_train, h_test = bag_of_words(windows, train, test)
        return logistic(h_train, labels[train], h_test, lam=1e-3)

    results = [
        ("local (event features)", 20, lambda tr, te: logistic(local[tr], labels[tr], local[te])),
        ("bow (paper's representation)", 3, predict_bow),
        ("length only (artefact)", 20, lambda tr, te: logistic(length[tr], labels[tr], length[te])),
    ]
    print("\nrepeated stratified 2-fold CV, scored on the held-out half:")
    print(f"{'classifier':32} {'repeats':>7} {'accuracy':>9} {'FPR':>6} {'pothole recall':>15}")
    for name, repeats, predict in results:
        acc, fpr, recall = cross_validate(classes, labels, predict, repeats)
        print(f"{name:32} {repeats:7d} {acc:9.1%} {fpr:6.1%} {recall:15.1%}")
    print("goal (issue 4)                            ≥ 95.0%  ≤ 3.0%          ≥ 90.0%")


if __name__ == "__main__":
    main()
