package test
