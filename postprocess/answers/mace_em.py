"""MACE (Hovy et al. 2013) with its variational M-step, vectorised like postprocess.answers.fast_em's models; where it
departs from crowd-kit 1.4.2: docs/explanation/answers-confidence.md.
Column contract (crowd-kit's): ``fit(data)`` reads ``task, worker, label``; ``probas_`` is tasks (first-seen order) x
labels (text order), each row the posterior of the true label."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.special import digamma, gammaln

from postprocess.answers.fast_em import Codes, codes, given_sums, probas_frame, report_iteration, row_logsumexp

TRUSTED = 0.7  # the trusting start: every worker knows the answer this often (majority vote's view)
STRATEGY_PRIOR = 10.0  # symmetric Dirichlet on each worker's spamming distribution (the paper's, crowd-kit's)
LABEL_PRIOR = 1.0  # symmetric Dirichlet on the true labels' shares, when they are learned
LABEL_PRIORS = ("uniform", "learned", "either")
TOL = 1e-9  # the chosen restart goes on until a round raises the bound by less than this a label (None: it stops)
MAX_ITER = 1000
SCREEN_ITER = 10  # iterations of each restart before they are ranked by their bound (the module)
LEARN_MARGIN = 1.0  # nats the learned prior's bound must gain over the uniform one's (a Bayes factor of e)
SCREEN_GAP = 20.0  # a prior this far behind once screened is not run on (running on moved the gap <= 4 nats)


class _Run(NamedTuple):
    bound: float  # the variational lower bound on the log marginal likelihood
    spamming: np.ndarray  # workers x (spams, knows)
    thetas: np.ndarray  # workers x labels: each worker's spamming distribution
    log_prior: np.ndarray  # labels: the true label's prior, as the E-step reads it


class MACE:
    """MACE with ``n_restarts`` starts after a trusting one, ``n_iter`` iterations each, label prior ``either`` way."""

    def __init__(self, n_restarts: int = 10, n_iter: int = SCREEN_ITER, default_noise: float = 0.5, alpha: float = 0.5,
                 beta: float = 0.5, random_state: int | None = 0, label_prior: str = "either",
                 tol: float | None = TOL, max_iter: int = MAX_ITER) -> None:
        if label_prior not in LABEL_PRIORS:
            raise ValueError(f"label_prior must be one of {', '.join(LABEL_PRIORS)}, not {label_prior!r}")
        self.n_restarts, self.n_iter, self.default_noise = n_restarts, n_iter, default_noise
        self.alpha, self.beta, self.random_state, self.label_prior = alpha, beta, random_state, label_prior
        self.tol, self.max_iter = tol, max_iter

    def fit(self, data: pd.DataFrame) -> MACE:
        c = _workers_in_text_order(codes(data))
        n_workers, k = len(c.worker_names), len(c.label_names)
        uniform = np.full(k, -np.log(k))
        screened = {}
        for learned in {"uniform": (False,), "learned": (True,), "either": (False, True)}[self.label_prior]:
            draws = np.random.RandomState(self.random_state)  # the same starts for either prior
            runs = [self._run(c, (*self._start(n_workers, k, draws, trusting=restart == 0), uniform), learned,
                              self.n_iter) for restart in range(self.n_restarts + 1)]
            screened[learned] = max(runs, key=lambda run: run.bound)  # the first of equal bounds
        lead = max(run.bound for run in screened.values())
        best: _Run | None = None
        for learned, chosen in screened.items():
            if chosen.bound < lead - SCREEN_GAP:
                continue
            # fifty iterations do not always converge: the chosen restart goes on until the bound stops rising
            if self.tol is not None:
                chosen = self._run(c, (chosen.spamming, chosen.thetas, chosen.log_prior), learned, self.max_iter,
                                   self.tol)
            if best is None or chosen.bound > best.bound + LEARN_MARGIN:  # the uniform prior is run first
                best = chosen
        assert best is not None
        posterior = _e_step(c, best.spamming, best.thetas, best.log_prior)[1]
        self.spamming_, self.thetas_, self.bound_ = best.spamming, best.thetas, best.bound
        shares = np.exp(best.log_prior)
        self.label_prior_ = pd.Series(shares / shares.sum(), index=c.label_names, name="prior")
        self.probas_ = probas_frame(c, posterior)
        return self

    def _start(self, n_workers: int, k: int, draws: np.random.RandomState, trusting: bool = False,
               ) -> tuple[np.ndarray, np.ndarray]:
        """crowd-kit's start (``uniform(1, 1 + noise)`` draws, rows normalised) from ``draws``, or the trusting one."""
        if trusting:
            return np.tile([1 - TRUSTED, TRUSTED], (n_workers, 1)), np.full((n_workers, k), 1 / k)
        scale = 1 + self.default_noise
        spamming = 1 + scale * draws.uniform(0, 1, (n_workers, 2))
        thetas = 1 + scale * draws.uniform(0, 1, (n_workers, k))
        return spamming / spamming.sum(axis=1, keepdims=True), thetas / thetas.sum(axis=1, keepdims=True)

    def _run(self, c: Codes, start: tuple[np.ndarray, np.ndarray, np.ndarray], learned: bool, most: int,
             tol: float | None = None) -> _Run:
        """E-steps and variational M-steps from ``start``, ``most`` rounds or until the bound gains under ``tol``."""
        spamming, thetas, log_prior = start
        posteriors: tuple[np.ndarray, ...] | None = None  # the variational posteriors' Dirichlet parameters
        last = -np.inf
        for iteration in range(most):
            report_iteration("mace", iteration + 1, most)
            log_evidence, posterior, strategy_counts, knowing_counts = _e_step(c, spamming, thetas, log_prior)
            if tol is not None and posteriors is not None:
                bound = log_evidence - self._divergence(posteriors)
                if bound - last < tol * len(c.tasks):
                    return _Run(bound, spamming, thetas, log_prior)
                last = bound
            posteriors = (knowing_counts + np.array([self.alpha, self.beta]), strategy_counts + STRATEGY_PRIOR)
            spamming, thetas = _expected(posteriors[0]), _expected(posteriors[1])
            if learned:
                shares = posterior.sum(axis=0) + LABEL_PRIOR
                posteriors += (shares,)
                log_prior = digamma(shares) - digamma(shares.sum())
        log_evidence = _e_step(c, spamming, thetas, log_prior)[0]
        return _Run(log_evidence - self._divergence(posteriors), spamming, thetas, log_prior)

    def _divergence(self, posteriors: tuple[np.ndarray, ...] | None) -> float:
        """KL of the variational posteriors from their priors: the bound is the log evidence less this."""
        if posteriors is None:
            return 0.0
        k = posteriors[1].shape[1]
        priors = (np.array([self.alpha, self.beta]), np.full(k, STRATEGY_PRIOR), np.full(k, LABEL_PRIOR))
        return sum(_kl_dirichlet(np.atleast_2d(posterior), prior)
                   for posterior, prior in zip(posteriors, priors[:len(posteriors)], strict=True))


def _workers_in_text_order(c: Codes) -> Codes:
    """The codes with workers renumbered in text order (the starts are drawn per worker in that order)."""
    by_name = np.argsort(np.asarray(c.worker_names, dtype=str), kind="stable")
    rank = np.empty(len(by_name), dtype=np.int64)
    rank[by_name] = np.arange(len(by_name))
    return c._replace(workers=rank[c.workers], worker_names=c.worker_names[by_name])


def _e_step(c: Codes, spamming: np.ndarray, thetas: np.ndarray, log_prior: np.ndarray,
            ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Log marginal likelihood, posteriors, expected strategy counts and expected spam/know counts."""
    spam = spamming[c.workers, 0] * thetas[c.workers, c.labels]  # the given label by spamming
    know = spamming[c.workers, 1]  # by knowing it (only when it is the true one)
    log_joint = given_sums(c, np.log(spam + know), np.log(spam)) + log_prior
    log_instance = row_logsumexp(log_joint)
    posterior = np.exp(log_joint - log_instance[:, None])
    given = posterior[c.tasks, c.labels]
    strategy = (1 - given) + given * spam / (spam + know)
    knowing = given * know / (spam + know)
    n_workers, k = len(c.worker_names), len(c.label_names)
    strategy_counts = np.bincount(c.workers * k + c.labels, strategy, minlength=n_workers * k).reshape(-1, k)
    knowing_counts = np.stack([np.bincount(c.workers, strategy, minlength=n_workers),
                               np.bincount(c.workers, knowing, minlength=n_workers)], axis=1)
    return float(log_instance.sum()), posterior, strategy_counts, knowing_counts


def _expected(parameters: np.ndarray) -> np.ndarray:
    """crowd-kit's ``variational_normalize``: exp(E[log p]) under Dirichlet(``parameters``), row by row."""
    return np.exp(digamma(parameters)) / np.exp(digamma(parameters.sum(axis=-1, keepdims=True)))


def _kl_dirichlet(posterior: np.ndarray, prior: np.ndarray) -> float:
    """Sum over rows of KL(Dirichlet(posterior row) || Dirichlet(prior))."""
    total = posterior.sum(axis=1)
    return float((gammaln(total) - gammaln(posterior).sum(axis=1) - gammaln(prior.sum()) + gammaln(prior).sum()
                  + ((posterior - prior) * (digamma(posterior) - digamma(total)[:, None])).sum(axis=1)).sum())
