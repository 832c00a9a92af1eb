/* Store writer threads (see writer.h). */
#include "writer.h"
#include "util/error.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct writer {
    char *dir, *tmp;    /* the store, and the instance's temp folder in it */
    struct event *wake; /* the loop's side of efd */
    int efd;
    pthread_mutex_t lock;
    pthread_cond_t work;
    write_req *todo_head, *todo_tail; /* waiting for a thread, FIFO */
    write_req *done_head, *done_tail; /* written, waiting for the loop */
    int stopping;
    unsigned nthreads;
    pthread_t *threads;
};

static void push(write_req **head, write_req **tail, write_req *r)
{
    r->next = NULL;
    if (*tail)
        (*tail)->next = r;
    else
        *head = r;
    *tail = r;
}

static void *run(void *arg)
{
    writer *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->todo_head == NULL && !w->stopping) pthread_cond_wait(&w->work, &w->lock);
        write_req *r = w->todo_head;
        if (r == NULL) break; /* stopping, and nothing left to write */
        w->todo_head = r->next;
        if (w->todo_head == NULL) w->todo_tail = NULL;
        pthread_mutex_unlock(&w->lock);
        r->err = (treg_error){0, ""};
        if (r->work != NULL)
            r->work(r);
        else if (r->sources != NULL)
            r->rc = store_write_sources(w->dir, w->tmp, r->sources_key, r->sources_team,
                                        r->sources_created_unix, r->sources, r->nsources,
                                        &r->sources_differ, &r->err);
        else
            r->rc = store_write_upload(w->dir, w->tmp, &r->upload, &r->err);
        pthread_mutex_lock(&w->lock);
        push(&w->done_head, &w->done_tail, r);
        uint64_t one = 1;
        /* Fails only when the counter would overflow, i.e. the loop is
         * already due to wake. */
        ssize_t ignored = write(w->efd, &one, sizeof one);
        (void)ignored;
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Runs the done callbacks of every finished write (loop thread). */
static void deliver(writer *w)
{
    pthread_mutex_lock(&w->lock);
    write_req *r = w->done_head;
    w->done_head = w->done_tail = NULL;
    pthread_mutex_unlock(&w->lock);
    while (r != NULL) {
        write_req *next = r->next;
        r->done(r); /* may free r */
        r = next;
    }
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
    uint64_t n;
    if (read(fd, &n, sizeof n) < 0 && errno != EAGAIN) return;
    deliver(arg);
}

writer *writer_new(struct event_base *base, const char *dir, const char *tmp, unsigned threads,
                   treg_error *err)
{
    writer *w = calloc(1, sizeof *w);
    if (w == NULL || (dir != NULL && (w->dir = strdup(dir)) == NULL) ||
        (tmp != NULL && (w->tmp = strdup(tmp)) == NULL) ||
        (w->threads = calloc(threads, sizeof *w->threads)) == NULL) {
        if (w) {
            free(w->dir);
            free(w->tmp);
        }
        free(w);
        treg_fail(err, TREG_E_NOMEM, "store writers: out of memory");
        return NULL;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->work, NULL);
    w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    w->wake = w->efd >= 0 ? event_new(base, w->efd, EV_READ | EV_PERSIST, on_wake, w) : NULL;
    if (w->wake == NULL || event_add(w->wake, NULL) != 0) {
        treg_fail(err, TREG_E_IO, "store writers: %s", w->efd < 0 ? strerror(errno) : "no event");
        writer_free(w);
        return NULL;
    }
    /* Signals stay with the loop thread (libevent's handlers). */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (unsigned i = 0; i < threads; i++) {
        int rc = pthread_create(&w->threads[i], NULL, run, w);
        if (rc != 0) {
            treg_fail(err, TREG_E_IO, "store writers: cannot start a thread: %s", strerror(rc));
            break;
        }
        w->nthreads++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (w->nthreads < threads) {
        writer_free(w);
        return NULL;
    }
    return w;
}

void writer_submit(writer *w, write_req *req)
{
    pthread_mutex_lock(&w->lock);
    push(&w->todo_head, &w->todo_tail, req);
    pthread_cond_signal(&w->work);
    pthread_mutex_unlock(&w->lock);
}

void writer_free(writer *w)
{
    if (w == NULL) return;
    pthread_mutex_lock(&w->lock);
    w->stopping = 1;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->lock);
    /* The threads finish the queue before they exit. */
    for (unsigned i = 0; i < w->nthreads; i++) pthread_join(w->threads[i], NULL);
    deliver(w);
    if (w->wake) event_free(w->wake);
    if (w->efd >= 0) close(w->efd);
    pthread_cond_destroy(&w->work);
    pthread_mutex_destroy(&w->lock);
    free(w->threads);
    free(w->dir);
    free(w->tmp);
    free(w);
}
