"""GLAD, MACE and one-coin Dawid-Skene as vectorised EM over integer codes: crowd-kit's models, the same
updates, at numpy's speed (crowd-kit 1.4.2's took 81 s to over 600 s on 92,721 labels).

crowd-kit (Ustalov et al., https://github.com/Toloka/crowd-kit) writes each step as pandas joins and
group-bys over one row per judgement and candidate label; here each step is a handful of ``np.bincount``
calls over one row per judgement, because every sum a step needs reduces to the probability of the label
the worker gave (e.g. GLAD's ``sum_k p_k (delta_k - sigma) = p_given - sigma``). Same starting points,
the same M-steps (GLAD's conjugate-gradient step through scipy with crowd-kit's tolerances, MACE's
variational step, one-coin's closed form) and the same stopping rules; tests/test_fast_em.py and
bench/aggregation_speed.py compare the answers with crowd-kit's on the same data.

Column contract (crowd-kit's): ``fit(data)`` reads ``task, worker, label``; ``probas_`` is a frame of
tasks (in first-seen order) x labels (in text order), each row a distribution. Two departures, both
deliberate: MACE restarts drawn from one fixed ``random_state`` are identical in crowd-kit, so one is
run (the same result, a tenth of the time); and MACE reads workers and labels in text order throughout, so
the rows' order does not change its answers, where crowd-kit draws its start by first-seen worker and label
and reads its expected counts back in text order (the same only on rows that list workers and labels so).

``PROGRESS`` (a context variable) may hold a callable taking one line of text: each EM iteration is
reported to it (the CLI prints it once a run takes over 2 s). Nothing here prints.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy.special import digamma, expit, logsumexp

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


def _report(method: str, iteration: int, most: int) -> None:
    progress = PROGRESS.get()
    if progress is not None:
        progress(f"{method}: EM iteration {iteration} of at most {most}")


def _frame(c: Codes, probas: np.ndarray) -> pd.DataFrame:
    out = pd.DataFrame(probas, index=c.task_names, columns=c.label_names)
    out.index.name, out.columns.name = "task", "label"
    return out


def _given_sums(c: Codes, on_given: np.ndarray, on_other: np.ndarray) -> np.ndarray:
    """Tasks x labels: for each candidate label, the sum over the task's judgements of ``on_given`` where the
    judgement gave that label and ``on_other`` where it did not."""
    n_tasks, k = len(c.task_names), len(c.label_names)
    base = np.bincount(c.tasks, on_other, minlength=n_tasks)
    extra = np.bincount(c.tasks * k + c.labels, on_given - on_other, minlength=n_tasks * k).reshape(n_tasks, k)
    return base[:, None] + extra


def _softmax_rows(log_p: np.ndarray) -> np.ndarray:
    return np.exp(log_p - logsumexp(log_p, axis=1, keepdims=True))


class OneCoinDawidSkene:
    """crowd-kit's OneCoinDawidSkene: one accuracy per worker, errors spread evenly over the other labels,
    started from majority vote."""

    def __init__(self, n_iter: int = 100, tol: float = 1e-5) -> None:
        self.n_iter, self.tol = n_iter, tol

    def fit(self, data: pd.DataFrame) -> OneCoinDawidSkene:
        c = codes(data)
        k = len(c.label_names)
        probas = _given_sums(c, np.ones(len(c.tasks)), np.zeros(len(c.tasks)))
        probas /= probas.sum(axis=1, keepdims=True)  # majority vote's shares
        priors, right, wrong = self._m_step(c, probas, k)
        loss = -np.inf
        for iteration in range(self.n_iter):
            _report("one-coin", iteration + 1, self.n_iter)
            log2 = _given_sums(c, np.log2(right[c.workers]), np.log2(wrong[c.workers])) + np.log2(priors)
            probas = np.exp2(log2 - log2.max(axis=1, keepdims=True))
            probas /= probas.sum(axis=1, keepdims=True)
            priors, right, wrong = self._m_step(c, probas, k)
            new_loss = self._lower_bound(c, probas, priors, right, wrong) / len(c.tasks)
            if new_loss - loss < self.tol:
                break
            loss = new_loss
        self.probas_ = _frame(c, np.clip(probas, EPS, None))
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
    """crowd-kit's GLAD (Whitehill et al. 2009): worker ability alpha, task difficulty exp(beta), N(1, 1)
    priors on both, uniform label priors; each M-step is scipy's conjugate gradient with crowd-kit's limits."""

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
            _report("glad", iteration + 1, self.n_iter)
            last = q
            probas = self._e_step(x)
            with threadpool_limits(1, user_api="blas"):  # BLAS threads on vectors this short only wait on each other
                x = minimize(self._loss, x, args=(probas,), method="CG", jac=True, tol=self.m_step_tol,
                             options={"disp": False, "maxiter": self.m_step_max_iter}).x
            q = self._q(x, probas) / len(c.tasks)
            if q - last < self.tol:
                break
        self.alphas_ = pd.Series(x[:n_workers], index=c.worker_names, name="alpha")
        self.betas_ = pd.Series(x[n_workers:], index=c.task_names, name="beta")
        self.probas_ = _frame(c, probas)
        return self

    def _terms(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per judgement: alpha * exp(beta), exp(beta) and alpha."""
        n_workers = len(self._c.worker_names)
        alpha, exp_beta = x[:n_workers][self._c.workers], np.exp(x[n_workers:])[self._c.tasks]
        return alpha * exp_beta, exp_beta, alpha

    def _e_step(self, x: np.ndarray) -> np.ndarray:
        ab = self._terms(x)[0]
        log_right, log_wrong = -np.logaddexp(0, -ab), -np.logaddexp(0, ab) - self._log_other
        return _softmax_rows(_given_sums(self._c, log_right, log_wrong))  # uniform label priors cancel

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


TRUSTED = 0.7  # MACE's trusting start: every worker knows the answer this often (majority vote's view)


class MACE:
    """crowd-kit's MACE (Hovy et al. 2013) with its variational M-step: each worker spams with some
    probability, then answers from their own label distribution, else gives the true label."""

    def __init__(self, n_restarts: int = 10, n_iter: int = 50, default_noise: float = 0.5, alpha: float = 0.5,
                 beta: float = 0.5, random_state: int | None = 0) -> None:
        self.n_restarts, self.n_iter, self.default_noise = n_restarts, n_iter, default_noise
        self.alpha, self.beta, self.random_state = alpha, beta, random_state

    def fit(self, data: pd.DataFrame) -> MACE:
        # workers and labels in text order, whatever the rows' order: the starting point is drawn per worker in
        # that order, so the same labels give the same answers however they are listed. crowd-kit
        # draws per worker in first-seen order and reads its expected counts back in text order (a group-by),
        # which pairs one worker's counts with another's starting point unless the rows list the workers in text
        # order: on such rows (e.g. sorted by worker) its answers are these.
        c = codes(data)
        by_name = np.argsort(np.asarray(c.worker_names, dtype=str), kind="stable")
        rank = np.empty(len(by_name), dtype=np.int64)
        rank[by_name] = np.arange(len(by_name))
        c = c._replace(workers=rank[c.workers], worker_names=c.worker_names[by_name])
        best: tuple[float, Any] = (-np.inf, None)
        # restarts from different draws of one generator, the best likelihood kept (the paper's restarts; crowd-kit
        # draws each restart from the same seed, so its ten are one): EM from one start finds a poor optimum on
        # sparse, skewed sets, where a model that calls everyone a spammer of the common class fits nearly as well
        draws = np.random.RandomState(self.random_state)
        for restart in range(self.n_restarts + 1):
            spamming, thetas = self._start(len(c.worker_names), len(c.label_names), draws, trusting=restart == 0)
            for iteration in range(self.n_iter):
                _report("mace", iteration + 1, self.n_iter)
                spamming, thetas = self._m_step(*self._e_step(c, spamming, thetas)[2:])
            likelihood = self._e_step(c, spamming, thetas)[0]
            if likelihood > best[0] or best[1] is None:
                best = (likelihood, (spamming, thetas))
        posterior = self._e_step(c, *best[1])[1]
        self.spamming_, self.thetas_ = best[1]
        self.probas_ = _frame(c, posterior)
        return self

    def _start(self, n_workers: int, k: int, draws: np.random.RandomState, trusting: bool = False,
               ) -> tuple[np.ndarray, np.ndarray]:
        """crowd-kit's starting point, ``scipy.stats.uniform(1, 1 + noise)`` draws with rows normalised, from
        ``draws``."""
        if trusting:
            return (np.tile([1 - TRUSTED, TRUSTED], (n_workers, 1)), np.full((n_workers, k), 1 / k))
        scale = 1 + self.default_noise
        spamming = 1 + scale * draws.uniform(0, 1, (n_workers, 2))
        thetas = 1 + scale * draws.uniform(0, 1, (n_workers, k))
        return spamming / spamming.sum(axis=1, keepdims=True), thetas / thetas.sum(axis=1, keepdims=True)

    @staticmethod
    def _e_step(c: Codes, spamming: np.ndarray, thetas: np.ndarray) -> tuple[float, np.ndarray, np.ndarray,
                                                                            np.ndarray]:
        """Log marginal likelihood, posteriors, expected strategy counts (workers x labels) and expected
        spam/know counts (workers x 2)."""
        spam = spamming[c.workers, 0] * thetas[c.workers, c.labels]  # the given label by spamming
        know = spamming[c.workers, 1]  # by knowing it (only when it is the true one)
        log_joint = _given_sums(c, np.log(spam + know), np.log(spam)) - np.log(len(c.label_names))
        log_instance = logsumexp(log_joint, axis=1)
        posterior = np.exp(log_joint - log_instance[:, None])
        given = posterior[c.tasks, c.labels]
        strategy = (1 - given) + given * spam / (spam + know)
        knowing = given * know / (spam + know)
        n_workers, k = len(c.worker_names), len(c.label_names)
        strategy_counts = np.bincount(c.workers * k + c.labels, strategy, minlength=n_workers * k).reshape(-1, k)
        knowing_counts = np.stack([np.bincount(c.workers, strategy, minlength=n_workers),
                                   np.bincount(c.workers, knowing, minlength=n_workers)], axis=1)
        likelihood = float(np.log(np.exp(log_instance) + 1e-8).sum())
        return likelihood, posterior, strategy_counts, knowing_counts

    def _m_step(self, strategy_counts: np.ndarray, knowing_counts: np.ndarray) -> tuple[np.ndarray,
                                                                                                  np.ndarray]:
        return (_variational(knowing_counts, np.array([self.alpha, self.beta])),
                _variational(strategy_counts, np.full(strategy_counts.shape[1], 10.0)))


def _variational(counts: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """crowd-kit's ``variational_normalize``: exp(digamma(x + prior)) / exp(digamma(row sum))."""
    return np.exp(digamma(counts + prior)) / np.exp(digamma((counts + prior).sum(axis=1, keepdims=True)))
