"""GLAD and one-coin Dawid-Skene as vectorised EM over integer codes: crowd-kit's models and updates, at numpy's speed.
Column contract (crowd-kit's): ``fit(data)`` reads ``task, worker, label``; ``probas_`` is a frame of tasks (in
first-seen order) x labels (in text order), each row a distribution. ``PROGRESS`` may hold a callable that each EM
iteration is reported to."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.special import expit

from postprocess.answers.em_progress import PROGRESS

EPS = 1e-10  # crowd-kit's floor on probabilities (dawid_skene._EPS)


class Codes(NamedTuple):
    tasks: np.ndarray  # per judgement, task code
    workers: np.ndarray
    labels: np.ndarray  # label code in ``label_names`` (text order)
    task_names: pd.Index
    worker_names: pd.Index
    label_names: pd.Index


def codes(data: pd.DataFrame) -> Codes:
    """Integer codes of ``task, worker, label``: tasks and workers in first-seen order (crowd-kit's)."""
    tasks, task_names = pd.factorize(data["task"])
    workers, worker_names = pd.factorize(data["worker"])
    labels, label_names = pd.factorize(data["label"], sort=True)
    return Codes(tasks, workers, labels, pd.Index(task_names), pd.Index(worker_names), pd.Index(label_names))


def report_iteration(method: str, iteration: int, most: int) -> None:
    progress = PROGRESS.get()
    if progress is not None:
        progress(f"{method}: EM iteration {iteration} of at most {most}")


def probas_frame(c: Codes, probas: np.ndarray) -> pd.DataFrame:
    out = pd.DataFrame(probas, index=c.task_names, columns=c.label_names)
    out.index.name, out.columns.name = "task", "label"
    return out


def given_sums(c: Codes, on_given: np.ndarray, on_other: np.ndarray) -> np.ndarray:
    """Tasks x labels: the sum over a task's judgements of ``on_given`` where given that label, else ``on_other``."""
    n_tasks, k = len(c.task_names), len(c.label_names)
    base = np.bincount(c.tasks, on_other, minlength=n_tasks)
    extra = np.bincount(c.tasks * k + c.labels, on_given - on_other, minlength=n_tasks * k).reshape(n_tasks, k)
    return base[:, None] + extra


def row_logsumexp(x: np.ndarray) -> np.ndarray:
    """``log(sum(exp(x), axis=1))`` shifted by each row's maximum: scipy's logsumexp costs ~15x more on small arrays."""
    top = x.max(axis=1)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(x - top[:, None]).sum(axis=1)) + top


class OneCoinDawidSkene:
    """crowd-kit's OneCoinDawidSkene: one accuracy per worker, errors spread evenly, from majority vote."""

    def __init__(self, n_iter: int = 100, tol: float = 1e-5) -> None:
        self.n_iter, self.tol = n_iter, tol

    def fit(self, data: pd.DataFrame) -> OneCoinDawidSkene:
        c = codes(data)
        k = len(c.label_names)
        probas = given_sums(c, np.ones(len(c.tasks)), np.zeros(len(c.tasks)))
        probas /= probas.sum(axis=1, keepdims=True)  # majority vote's shares
        priors, right, wrong = self._m_step(c, probas, k)
        loss = -np.inf
        for iteration in range(self.n_iter):
            report_iteration("one-coin", iteration + 1, self.n_iter)
            log2 = given_sums(c, np.log2(right[c.workers]), np.log2(wrong[c.workers])) + np.log2(priors)
            probas = np.exp2(log2 - log2.max(axis=1, keepdims=True))
            probas /= probas.sum(axis=1, keepdims=True)
            priors, right, wrong = self._m_step(c, probas, k)
            new_loss = self._lower_bound(c, probas, priors, right, wrong) / len(c.tasks)
            if new_loss - loss < self.tol:
                break
            loss = new_loss
        self.probas_ = probas_frame(c, np.clip(probas, EPS, None))
        return self

    @staticmethod
    def _m_step(c: Codes, probas: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Priors (floored), and each worker's chance of the right label and of each wrong one."""
        given = probas[c.tasks, c.labels]
        skill = np.bincount(c.workers, given) / np.bincount(c.workers)
        wrong = (1 - skill) / max(k - 1, 1)
        return np.clip(probas.mean(axis=0), EPS, None), np.clip(skill, EPS, 1 - EPS), np.clip(wrong, EPS, 1 - EPS)

    @staticmethod
    def _lower_bound(c: Codes, probas: np.ndarray, priors: np.ndarray, right: np.ndarray, wrong: np.ndarray) -> float:
        given = probas[c.tasks, c.labels]
        joint = (given * np.log(right[c.workers]) + (1 - given) * np.log(wrong[c.workers])).sum()
        joint += (probas[c.tasks] @ np.log(priors)).sum()  # crowd-kit adds the prior once per judgement
        clipped = np.clip(probas, EPS, None)
        return float(joint - (clipped * np.log(clipped)).sum())


class GLAD:
    """crowd-kit's GLAD (Whitehill et al. 2009): worker ability, task difficulty, crowd-kit's M-step."""

    def __init__(self, n_iter: int = 100, tol: float = 1e-5, m_step_max_iter: int = 25,
                 m_step_tol: float = 1e-2) -> None:
        self.n_iter, self.tol, self.m_step_max_iter, self.m_step_tol = n_iter, tol, m_step_max_iter, m_step_tol

    def fit(self, data: pd.DataFrame) -> GLAD:
        from scipy.optimize import minimize  # here: one-coin and MACE do without its import time
        from threadpoolctl import threadpool_limits  # scikit-learn's dependency

        c = codes(data)
        n_workers, k = len(c.worker_names), len(c.label_names)
        self._c, self._log_other = c, np.log(max(k - 1, 1))
        x = np.ones(n_workers + len(c.task_names))
        probas = self._e_step(x)
        q = self._q(x, probas)
        for iteration in range(self.n_iter):
            report_iteration("glad", iteration + 1, self.n_iter)
            last = q
            probas = self._e_step(x)
            with threadpool_limits(1, user_api="blas"):  # BLAS threads on vectors this short only wait on each other
                x = minimize(self._loss, x, args=(probas,), method="CG", jac=True, tol=self.m_step_tol,
                             options={"disp": False, "maxiter": self.m_step_max_iter}).x
            q = self._q(x, probas) / len(c.tasks)
            if q - last < self.tol:
                break
        self.probas_ = probas_frame(c, probas)
        return self

    def _terms(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per judgement: alpha * exp(beta), exp(beta) and alpha."""
        n_workers = len(self._c.worker_names)
        alpha, exp_beta = x[:n_workers][self._c.workers], np.exp(x[n_workers:])[self._c.tasks]
        return alpha * exp_beta, exp_beta, alpha

    def _e_step(self, x: np.ndarray) -> np.ndarray:
        ab = self._terms(x)[0]
        log_right, log_wrong = -np.logaddexp(0, -ab), -np.logaddexp(0, ab) - self._log_other
        log_p = given_sums(self._c, log_right, log_wrong)  # uniform label priors cancel
        return np.exp(log_p - row_logsumexp(log_p)[:, None])

    def _q(self, x: np.ndarray, probas: np.ndarray, ab: np.ndarray | None = None,
           given: np.ndarray | None = None) -> float:
        """crowd-kit's Q: the expected log-likelihood under ``probas`` plus the N(1, 1) priors' log densities."""
        ab = self._terms(x)[0] if ab is None else ab
        given = probas[self._c.tasks, self._c.labels] if given is None else given
        expected = (given * -np.logaddexp(0, -ab) + (1 - given) * (-np.logaddexp(0, ab) - self._log_other)).sum()
        return float(expected - 0.5 * ((x - 1) ** 2).sum() - 0.5 * len(x) * np.log(2 * np.pi))

    def _loss(self, x: np.ndarray, probas: np.ndarray) -> tuple[float, np.ndarray]:
        """The M-step's objective, -Q, and its gradient (one pass: they share every term)."""
        ab, exp_beta, alpha = self._terms(x)
        given = probas[self._c.tasks, self._c.labels]
        slack = given - expit(ab)
        n_workers, n_tasks = len(self._c.worker_names), len(self._c.task_names)
        d_alpha = np.bincount(self._c.workers, slack * exp_beta, minlength=n_workers)
        d_beta = np.bincount(self._c.tasks, slack * alpha * exp_beta, minlength=n_tasks)
        return -self._q(x, probas, ab, given), (x - 1) - np.concatenate([d_alpha, d_beta])
